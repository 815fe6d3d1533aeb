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

/** The part of an xterm Terminal the key handler needs. */
export interface SelectionSource {
  hasSelection(): boolean;
  getSelection(): string;
}

/**
 * xterm's custom key handler for the clipboard keys. Copy writes the selection (a sanitized
 * write, the one clipboard permission the desktop app grants). Paste is left to the browser:
 * returning false keeps xterm from sending the key to the shell, and leaving the default alone
 * lets Chromium (Ctrl+Shift+V) or the Edit menu's Paste (Cmd+V) fire a `paste` event, which
 * xterm turns into input. Reading the clipboard from script needs a permission the app never
 * grants, so the page never reads it on its own.
 */
export function terminalKeyHandler(
  term: SelectionSource,
  writeText: (text: string) => Promise<void>,
  mac: boolean,
): (e: KeyLike & { preventDefault(): void }) => boolean {
  return (e) => {
    const intent = clipboardIntent(e, mac);
    if (intent === null) return true;
    if (intent === 'copy') {
      e.preventDefault();
      if (term.hasSelection()) void writeText(term.getSelection()).catch(() => undefined);
    }
    return false;
  };
}
