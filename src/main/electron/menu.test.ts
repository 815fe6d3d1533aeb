import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { menuTemplate } from './menu';

const flatten = (items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] =>
  items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flatten(i.submenu) : [])]);
const roles = (items: MenuItemConstructorOptions[]) => flatten(items).map((i) => i.role).filter(Boolean);

describe('menuTemplate', () => {
  it('has File › Open Folder… on Ctrl/Cmd+O, which calls openFolder', () => {
    const openFolder = vi.fn();
    const item = flatten(menuTemplate({ platform: 'linux', developer: false, openFolder })).find((i) => i.id === 'open-folder');
    expect(item?.accelerator).toBe('CmdOrCtrl+O');
    expect(item?.label).toBe('Open Folder…');
    (item!.click as () => void)();
    expect(openFolder).toHaveBeenCalledOnce();
  });

  it('has the clipboard roles in Edit', () => {
    expect(roles(menuTemplate({ platform: 'linux', developer: false, openFolder: () => {} }))).toEqual(
      expect.arrayContaining(['copy', 'paste', 'cut', 'selectAll', 'undo', 'redo']),
    );
  });

  it('offers reload and DevTools only in a developer run', () => {
    const packaged = roles(menuTemplate({ platform: 'linux', developer: false, openFolder: () => {} }));
    const dev = roles(menuTemplate({ platform: 'linux', developer: true, openFolder: () => {} }));
    for (const role of ['reload', 'forceReload', 'toggleDevTools']) {
      expect(packaged).not.toContain(role);
      expect(dev).toContain(role);
    }
  });

  it('follows platform conventions', () => {
    expect(roles(menuTemplate({ platform: 'darwin', developer: false, openFolder: () => {} }))).toEqual(
      expect.arrayContaining(['appMenu', 'close', 'windowMenu']),
    );
    const linux = roles(menuTemplate({ platform: 'linux', developer: false, openFolder: () => {} }));
    expect(linux).toContain('quit');
    expect(linux).not.toContain('appMenu');
  });
});
