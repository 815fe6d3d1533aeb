import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { menuTemplate } from './menu';

const flatten = (items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] =>
  items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flatten(i.submenu) : [])]);
const roles = (items: MenuItemConstructorOptions[]) => flatten(items).map((i) => i.role).filter(Boolean);

describe('menuTemplate', () => {
  it('has File › Open Folder… on Ctrl/Cmd+O, which calls openFolder', () => {
    const openFolder = vi.fn();
    const item = flatten(menuTemplate({ platform: 'linux', developer: false, openFolder, exportSession: () => {}, openLog: () => {} })).find((i) => i.id === 'open-folder');
    expect(item?.accelerator).toBe('CmdOrCtrl+O');
    expect(item?.label).toBe('Open Folder…');
    (item!.click as () => void)();
    expect(openFolder).toHaveBeenCalledOnce();
  });

  it('has File › Export Session…, which asks the page to export the session it shows', () => {
    const exportSession = vi.fn();
    const item = flatten(menuTemplate({ platform: 'linux', developer: false, openFolder: () => {}, exportSession, openLog: () => {} })).find((i) => i.id === 'export-session');
    expect(item?.label).toBe('Export Session…');
    (item!.click as () => void)();
    expect(exportSession).toHaveBeenCalledOnce();
  });

  it('has Help › Open Log on every platform, which calls openLog', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const openLog = vi.fn();
      const template = menuTemplate({ platform, developer: false, openFolder: () => {}, exportSession: () => {}, openLog });
      const help = template.find((m) => m.role === 'help');
      const item = flatten(help && Array.isArray(help.submenu) ? help.submenu : []).find((i) => i.id === 'open-log');
      expect(item?.label).toBe('Open Log');
      (item!.click as () => void)();
      expect(openLog).toHaveBeenCalledOnce();
    }
  });

  it('has the clipboard roles in Edit', () => {
    expect(roles(menuTemplate({ platform: 'linux', developer: false, openFolder: () => {}, exportSession: () => {}, openLog: () => {} }))).toEqual(
      expect.arrayContaining(['copy', 'paste', 'cut', 'selectAll', 'undo', 'redo']),
    );
  });

  it('offers reload and DevTools only in a developer run', () => {
    const packaged = roles(menuTemplate({ platform: 'linux', developer: false, openFolder: () => {}, exportSession: () => {}, openLog: () => {} }));
    const dev = roles(menuTemplate({ platform: 'linux', developer: true, openFolder: () => {}, exportSession: () => {}, openLog: () => {} }));
    for (const role of ['reload', 'forceReload', 'toggleDevTools']) {
      expect(packaged).not.toContain(role);
      expect(dev).toContain(role);
    }
  });

  it('follows platform conventions', () => {
    expect(roles(menuTemplate({ platform: 'darwin', developer: false, openFolder: () => {}, exportSession: () => {}, openLog: () => {} }))).toEqual(
      expect.arrayContaining(['appMenu', 'close', 'windowMenu']),
    );
    const linux = roles(menuTemplate({ platform: 'linux', developer: false, openFolder: () => {}, exportSession: () => {}, openLog: () => {} }));
    expect(linux).toContain('quit');
    expect(linux).not.toContain('appMenu');
  });
});
