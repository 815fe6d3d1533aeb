// The smallest logger the agent needs: structured events, one line each.

export interface Logger {
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
}

export const nullLogger: Logger = { info() {}, warn() {} };

/** JSON lines on a stream (stderr for `loupe mcp`, whose stdout is the protocol). */
export function streamLogger(write: (line: string) => void): Logger {
  const emit = (level: string) => (event: string, fields: Record<string, unknown> = {}) =>
    write(JSON.stringify({ time: new Date().toISOString(), level, event, ...fields }) + '\n');
  return { info: emit('info'), warn: emit('warn') };
}

/** Keeps log lines short: long strings are cut with a note of their length. */
export function clip(s: string, max = 300): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length} chars)`;
}
