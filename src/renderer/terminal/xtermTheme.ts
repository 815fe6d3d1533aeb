import type { ITheme } from '@xterm/xterm';

// Matches the app's panel colours; the ANSI palette is tuned for contrast on that background.
export const XTERM_THEME: ITheme = {
  background: '#1b1d22',
  foreground: '#d5d8de',
  cursor: '#d5d8de',
  cursorAccent: '#1b1d22',
  selectionBackground: '#4d8dff55',
  black: '#2b2f37',
  red: '#f0716c',
  green: '#8fcf86',
  yellow: '#e2c08d',
  blue: '#6aa0ff',
  magenta: '#c792ea',
  cyan: '#5ccfe6',
  white: '#c9ced6',
  brightBlack: '#5c626d',
  brightRed: '#ff8f8a',
  brightGreen: '#a8e29f',
  brightYellow: '#f0d3a3',
  brightBlue: '#8cb6ff',
  brightMagenta: '#dab0f5',
  brightCyan: '#85e0f0',
  brightWhite: '#f2f4f7',
};
