// The one logger every layer writes to: structured events, one line each. Sinks decide where a
// line goes (the user's log file, stderr for the CLI); callers only name the event and its facts.

export type LogLevel = 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  /** Something failed that nobody asked for: give the Error itself in `fields.error`, its stack is kept. */
  error(event: string, fields?: LogFields): void;
}

export interface LogRecord {
  time: string;
  level: LogLevel;
  event: string;
  [field: string]: unknown;
}

export const nullLogger: Logger = { info() {}, warn() {}, error() {} };

/** An Error as data: name, message, code and details when it has them, and the whole stack. */
export function describeError(err: unknown): Record<string, unknown> | string {
  if (!(err instanceof Error)) return typeof err === 'string' ? err : safeString(err);
  const e = err as Error & { code?: unknown; details?: unknown; cause?: unknown };
  return {
    name: e.name,
    message: e.message,
    ...(e.code !== undefined ? { code: e.code } : {}),
    ...(e.details !== undefined ? { details: e.details } : {}),
    stack: e.stack ?? `${e.name}: ${e.message}`,
    ...(e.cause !== undefined ? { cause: describeError(e.cause) } : {}),
  };
}

function safeString(v: unknown): string {
  try {
    return String(v);
  } catch {
    return '(unprintable value)';
  }
}

/** A record ready for JSON: Errors anywhere at the top level of the fields become data. */
export function toRecord(level: LogLevel, event: string, fields: LogFields = {}): LogRecord {
  const out: LogRecord = { time: new Date().toISOString(), level, event };
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'time' || k === 'level' || k === 'event') continue; // the envelope is not a field
    out[k] = v instanceof Error ? describeError(v) : v;
  }
  return out;
}

/** Builds a Logger from one function that receives every record. */
export function recordLogger(write: (record: LogRecord) => void): Logger {
  const emit = (level: LogLevel) => (event: string, fields?: LogFields) => {
    try {
      write(toRecord(level, event, fields));
    } catch {
      // A log that cannot be written must never take the caller down with it.
    }
  };
  return { info: emit('info'), warn: emit('warn'), error: emit('error') };
}

/** One record as one JSON line; fields that cannot be serialised are named, not lost silently. */
export function jsonLine(r: LogRecord): string {
  try {
    return JSON.stringify(r) + '\n';
  } catch {
    return JSON.stringify({ time: r.time, level: r.level, event: r.event, note: 'fields could not be serialised' }) + '\n';
  }
}

/** JSON lines on a stream. */
export function streamLogger(write: (line: string) => void): Logger {
  return recordLogger((r) => write(jsonLine(r)));
}

/** One line a person reads in a terminal: `loupe: warn tool.crashed tool=bash`, then any stack. */
export function formatHuman(r: LogRecord): string {
  const { time: _t, level, event, ...fields } = r;
  const stacks: string[] = [];
  const parts = Object.entries(fields).map(([k, v]) => {
    if (v && typeof v === 'object' && typeof (v as { stack?: unknown }).stack === 'string') {
      stacks.push((v as { stack: string }).stack);
      return `${k}=${JSON.stringify((v as { message?: string }).message ?? '')}`;
    }
    return `${k}=${typeof v === 'string' ? (/[\s"=]/.test(v) ? JSON.stringify(v) : v) : jsonOf(v)}`;
  });
  const head = `loupe: ${level} ${event}${parts.length ? ' ' + parts.join(' ') : ''}`;
  return [head, ...stacks.map((s) => s.replace(/^/gm, '    '))].join('\n') + '\n';
}

function jsonOf(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return safeString(v);
  }
}

/** Human-readable lines on a stream (stderr for the CLI). */
export function humanLogger(write: (text: string) => void): Logger {
  return recordLogger((r) => write(formatHuman(r)));
}

/** Every record to every logger. */
export function teeLogger(...loggers: Logger[]): Logger {
  return {
    info: (event, fields) => loggers.forEach((l) => l.info(event, fields)),
    warn: (event, fields) => loggers.forEach((l) => l.warn(event, fields)),
    error: (event, fields) => loggers.forEach((l) => l.error(event, fields)),
  };
}

/** Keeps log lines short: long strings are cut with a note of their length. */
export function clip(s: string, max = 300): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length} chars)`;
}
