// The logger each entry point builds: the user's log file always, stderr where a person runs
// the command in a terminal. stdout is never written: `loupe mcp` speaks MCP on it.
import { fileLogger, logFilePath, type FileLoggerOptions } from './fileLogger';
import { humanLogger, streamLogger, teeLogger, type Logger } from './logger';

export interface UserLogOptions extends FileLoggerOptions {
  configDir: string;
  /**
   * stderr as well: 'always' (`loupe mcp`, whose stderr is the client's log), 'env' (only when
   * LOUPE_LOG is set, as `loupe run` always did), or 'never' (the app).
   */
  stderr?: 'always' | 'env' | 'never';
  env?: NodeJS.ProcessEnv;
  writeStderr?: (text: string) => void;
}

export interface UserLog {
  logger: Logger;
  /** The file the app's Help › Open Log and the settings dialog point at. */
  file: string;
}

export function userLog(opts: UserLogOptions): UserLog {
  const file = logFilePath(opts.configDir);
  const sinks = [fileLogger(file, opts)];
  const env = opts.env ?? process.env;
  const mode = opts.stderr ?? 'never';
  if (mode === 'always' || (mode === 'env' && env.LOUPE_LOG)) {
    const write = opts.writeStderr ?? ((text: string) => void process.stderr.write(text));
    // LOUPE_LOG=json keeps the machine-readable lines scripts may already parse.
    sinks.push(env.LOUPE_LOG === 'json' ? streamLogger(write) : humanLogger(write));
  }
  return { logger: teeLogger(...sinks), file };
}
