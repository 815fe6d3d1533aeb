// Which command runs a project's tests: `.loupe/config.json` "tests" per language first,
// else what the project itself declares (a package.json test script, pytest, go.mod).
import { access, readdir } from 'node:fs/promises';
import path from 'node:path';
import { InvalidArgumentError } from '../../errors';
import { readInside } from '../files/safeOpen';
import type { LoupeConfig } from '../config/loupeConfig';

export interface TestCommand {
  command: string;
  language: string | null;
  source: 'config' | 'detected' | 'argument';
}

const EXT_LANGUAGE: Record<string, string> = {
  '.ts': 'typescript', '.tsx': 'typescript', '.mts': 'typescript', '.cts': 'typescript',
  '.js': 'javascript', '.jsx': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript',
  '.py': 'python', '.go': 'go',
};

export const languageOf = (file: string): string | null => EXT_LANGUAGE[path.extname(file).toLowerCase()] ?? null;
export const shellQuote = (s: string): string => (/^[\w./@:=+-]+$/.test(s) ? s : `'${s.split("'").join(`'\\''`)}'`);
const exists = (p: string) => access(p).then(() => true, () => false);

/** The command with the one test file (or Go package) it should be narrowed to. */
function narrow(command: string, language: string | null, testFile: string | undefined, npm: boolean): string {
  if (!testFile) return command;
  if (language === 'go') {
    const pkg = `./${path.posix.dirname(testFile)}`.replace(/\/\.$/, '');
    return / \.\/\.\.\.$/.test(command) ? command.replace(/ \.\/\.\.\.$/, ` ${pkg}`) : `${command} ${pkg}`;
  }
  return `${command}${npm ? ' --' : ''} ${shellQuote(testFile)}`;
}

// A FIFO named package.json must not hang detection: read it as a regular file or not at all.
const readScripts = (root: string): Promise<Record<string, unknown> | null> =>
  readInside(root, path.join(root, 'package.json'), { maxBytes: 4 * 1024 * 1024 }).then(
    (r) => {
      const scripts = (JSON.parse(r ? r.buf.toString('utf8') : 'null') as { scripts?: unknown } | null)?.scripts;
      return scripts && typeof scripts === 'object' ? (scripts as Record<string, unknown>) : null;
    },
    () => null,
  );

async function detectNpm(root: string): Promise<string | null> {
  const script = (await readScripts(root))?.test;
  return typeof script === 'string' && script && !/no test specified/.test(script) ? 'npm test --silent' : null;
}

/** npm's lifecycle around a script: `npm test` runs pretest, test and posttest. */
const NPM_SCRIPT = /^(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)?([\w:.-]+)/;

/**
 * The command line as a person should judge it: the command itself and, when it runs a
 * package.json script, what that script (and its pre/post hooks) says.
 */
export async function describeTestCommand(root: string, command: string): Promise<string> {
  const m = NPM_SCRIPT.exec(command.trim());
  if (!m) return command;
  const name = m[1] === 't' ? 'test' : m[1];
  const scripts = await readScripts(root);
  const shown = [`pre${name}`, name, `post${name}`].flatMap((k) => (typeof scripts?.[k] === 'string' ? [`"${k}": ${JSON.stringify(scripts[k])}`] : []));
  return shown.length ? `${command}  (package.json scripts ${shown.join(', ')})` : command;
}

async function detectPytest(root: string): Promise<string | null> {
  for (const f of ['pytest.ini', 'conftest.py', 'tox.ini', 'setup.cfg', 'pyproject.toml']) if (await exists(path.join(root, f))) return 'python3 -m pytest -q';
  const names = [...(await readdir(root).catch(() => [])), ...(await readdir(path.join(root, 'tests')).catch(() => []))];
  return names.some((n) => /^test_.*\.py$|_test\.py$/.test(n)) ? 'python3 -m pytest -q' : null;
}

const detectGo = async (root: string) => ((await exists(path.join(root, 'go.mod'))) ? 'go test -v ./...' : null);

const DETECTORS: [string, (root: string) => Promise<string | null>][] = [
  ['javascript', detectNpm],
  ['python', detectPytest],
  ['go', detectGo],
];

export async function resolveTestCommand(root: string, config: LoupeConfig, testFile?: string): Promise<TestCommand> {
  const fileLanguage = testFile ? languageOf(testFile) : null;
  const configured = config.tests ?? {};
  // JavaScript and TypeScript projects usually share one runner.
  const sibling = (l: string | null) => (l === 'javascript' ? 'typescript' : l === 'typescript' ? 'javascript' : null);
  const wanted = fileLanguage ? [fileLanguage, sibling(fileLanguage)] : [...(config.languages ?? []), ...Object.keys(configured)];
  for (const l of wanted) {
    if (l && configured[l]) return { command: narrow(configured[l], l, testFile, false), language: l, source: 'config' };
  }
  for (const [language, detect] of DETECTORS) {
    if (fileLanguage && language !== fileLanguage && sibling(fileLanguage) !== language) continue;
    const command = await detect(root);
    if (command) return { command: narrow(command, language, testFile, command.startsWith('npm ')), language, source: 'detected' };
  }
  throw new InvalidArgumentError(
    `No test command found${testFile ? ` for ${testFile}` : ''}: no "tests" entry in .loupe/config.json, no package.json test script, pytest project or go.mod. ` +
      'Add e.g. {"tests": {"typescript": "npx vitest run"}} to .loupe/config.json, or pass test_command.',
  );
}
