// The application menu, as data. Pure: main.ts builds it with Menu.buildFromTemplate.
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuInput {
  platform: NodeJS.Platform;
  /** Reload and DevTools appear only in a developer run (see isDeveloperRun). */
  developer: boolean;
  openFolder: () => void;
  /** File › Export Session…: the page exports the session it shows (a save dialog picks where). */
  exportSession: () => void;
  /** Help › Open Log: the user's log file (tool crashes, config problems). */
  openLog: () => void;
}

export function menuTemplate({ platform, developer, openFolder, exportSession, openLog }: MenuInput): MenuItemConstructorOptions[] {
  const isMac = platform === 'darwin';
  const template: MenuItemConstructorOptions[] = [];
  if (isMac) template.push({ role: 'appMenu' });
  template.push(
    {
      label: '&File',
      submenu: [
        { id: 'open-folder', label: 'Open Folder…', accelerator: 'CmdOrCtrl+O', click: () => openFolder() },
        { id: 'export-session', label: 'Export Session…', accelerator: 'CmdOrCtrl+Shift+E', click: () => exportSession() },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    {
      label: '&Edit',
      submenu: [
        { role: 'undo' },
        { role: 'redo' },
        { type: 'separator' },
        { role: 'cut' },
        { role: 'copy' },
        { role: 'paste' },
        { role: 'selectAll' },
      ],
    },
    {
      label: '&View',
      submenu: [
        ...(developer
          ? ([{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, { type: 'separator' }] as MenuItemConstructorOptions[])
          : []),
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    { role: 'help', submenu: [{ id: 'open-log', label: 'Open Log', click: () => openLog() }] },
  );
  return template;
}
