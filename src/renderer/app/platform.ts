/** macOS uses Cmd where everyone else uses Ctrl; the labels and the key checks must agree. */
export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
export const modKey = isMac ? '⌘' : 'Ctrl';
