export type ClipboardIntent = 'copy' | 'paste' | null;

interface KeyLike {
  type: string;
  key: string;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

/**
 * Terminal copy/paste keys. Plain Ctrl+C must stay SIGINT, so on Linux/Windows it is
 * Ctrl+Shift+C/V as in every terminal emulator; on macOS Cmd+C/V, which the shell never sees.
 */
export function clipboardIntent(e: KeyLike, mac: boolean): ClipboardIntent {
  if (e.type !== 'keydown' || e.altKey) return null;
  const key = e.key.toLowerCase();
  if (key !== 'c' && key !== 'v') return null;
  const chord = mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && e.shiftKey && !e.metaKey;
  if (!chord) return null;
  return key === 'c' ? 'copy' : 'paste';
}
