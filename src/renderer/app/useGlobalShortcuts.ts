import { useEffect } from 'react';
import { useApp } from '../store';
import { isMac } from './platform';

/**
 * App-wide keys. Listening in the capture phase lets them win over Monaco and xterm, which
 * would otherwise swallow Ctrl+O or type a backtick into the shell.
 */
export function useGlobalShortcuts(): void {
  const requestOpenFolder = useApp((s) => s.requestOpenFolder);
  const focusTerminal = useApp((s) => s.focusTerminal);
  const createTerminal = useApp((s) => s.createTerminal);
  const hasWorkspace = useApp((s) => s.workspace !== null);
  const setSearchBox = useApp((s) => s.setSearchBox);
  const openRemoteDialog = useApp((s) => s.openRemoteDialog);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = isMac ? e.metaKey : e.ctrlKey;
      let handled = true;
      if (mod && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'o') void requestOpenFolder();
      // Zed's "Open Remote" key.
      else if (mod && e.shiftKey && !e.altKey && e.key.toLowerCase() === 'o') openRemoteDialog();
      else if (hasWorkspace && mod && !e.shiftKey && !e.altKey && e.key.toLowerCase() === 'p') setSearchBox('quick-open');
      else if (hasWorkspace && mod && e.shiftKey && !e.altKey && e.key.toLowerCase() === 'f') setSearchBox('find-in-files');
      // VS Code binds these to Ctrl on every platform, macOS included.
      else if (hasWorkspace && e.ctrlKey && !e.altKey && e.code === 'Backquote') {
        if (e.shiftKey) void createTerminal();
        else focusTerminal();
      } else handled = false;
      if (handled) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [requestOpenFolder, focusTerminal, createTerminal, hasWorkspace, setSearchBox, openRemoteDialog]);
}
