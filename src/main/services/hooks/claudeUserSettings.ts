// The person's own Claude Code settings, `~/.claude/settings.json` (HOME as this process has it),
// read for its hooks alone and unchanged: the one reader of that file. Re-read when its stat
// changes, so an edit applies to the next event; each problem is said once with its line and
// column. Loupe never writes it.
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HOOK_SOURCES, NO_FILE_HOOKS, claudeFileHooks, type FileHooks } from '../config/hooksConfig';
import { ProblemReporter, type ConfigProblem } from '../config/validate';

export class ClaudeUserSettings {
  readonly file: string;
  private cached: { key: string; value: FileHooks } | null = null;
  private readonly reporter: ProblemReporter;

  constructor(env: NodeJS.ProcessEnv = process.env, report: (problem: ConfigProblem) => void = () => undefined) {
    this.file = path.join(env.HOME || os.homedir(), '.claude', 'settings.json');
    this.reporter = new ProblemReporter(report);
  }

  hooks(): FileHooks {
    let key: string;
    try {
      const s = statSync(this.file);
      if (!s.isFile()) throw new Error('not a file');
      key = `${s.mtimeMs}:${s.size}:${s.ino}`;
    } catch {
      this.reporter.found([]);
      return NO_FILE_HOOKS;
    }
    if (this.cached?.key === key) return this.cached.value;
    let value: FileHooks;
    try {
      value = claudeFileHooks(readFileSync(this.file, 'utf8'), HOOK_SOURCES.claudeUser, this.file);
    } catch (err) {
      value = { ...NO_FILE_HOOKS, problems: [{ file: this.file, line: null, column: null, message: `cannot be read: ${(err as Error).message}` }] };
    }
    this.cached = { key, value };
    this.reporter.found(value.problems);
    return value;
  }
}
