// Which language server serves a file, and how it is started (docs/architecture.md, language
// servers). TypeScript/JavaScript and Python run servers Loupe ships (typescript-language-server
// with Loupe's own TypeScript, pyright); Go, Rust and C/C++ use gopls, rust-analyzer and clangd
// when they are on PATH; `.loupe/config.json` can name any other command. A server reads the
// repository, so what the repository itself chooses — its own node_modules/typescript, a command
// from its config — is used only in a trusted folder, and a server that builds the project
// (rust-analyzer runs build scripts, gopls runs `go list`) starts only in a trusted folder or
// inside the OS sandbox.
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** A file's URI as servers are told it. */
export const fileUri = (abs: string): string => 'file://' + abs.split('/').map(encodeURIComponent).join('/');

/** A group of files one server serves, named by its config key. */
interface LanguageGroup {
  key: string;
  /** Extension → LSP languageId. */
  ids: Record<string, string>;
}

const GROUPS: LanguageGroup[] = [
  {
    key: 'typescript',
    ids: {
      '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript', '.tsx': 'typescriptreact',
      '.js': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript', '.jsx': 'javascriptreact',
    },
  },
  { key: 'python', ids: { '.py': 'python', '.pyi': 'python' } },
  { key: 'go', ids: { '.go': 'go' } },
  { key: 'rust', ids: { '.rs': 'rust' } },
  { key: 'cpp', ids: { '.c': 'c', '.h': 'c', '.cc': 'cpp', '.cpp': 'cpp', '.cxx': 'cpp', '.hpp': 'cpp', '.hh': 'cpp' } },
];

/** The programs looked up on PATH, by group. */
const ON_PATH: Record<string, { name: string; args: string[] }> = {
  go: { name: 'gopls', args: [] },
  rust: { name: 'rust-analyzer', args: [] },
  cpp: { name: 'clangd', args: ['--background-index=false'] },
};

/** A server named in `.loupe/config.json` (`"lsp": {"<key>": {"command": [...], "extensions": [...]}}`). */
export interface ConfiguredServer {
  command: string[];
  extensions?: string[];
}

export interface LspSettings {
  /** `"lsp": false` (or LOUPE_LSP=off) turns every server off. */
  enabled: boolean;
  /** Languages turned off one by one (`"lsp": {"python": false}`). */
  off: string[];
  /** The config's commands; applied only when `trusted`. */
  configured: Record<string, ConfiguredServer>;
  /** The person trusted this folder with its config as it is now. */
  trusted: boolean;
  /** Servers will run inside the OS sandbox (workspace read-only, no network). */
  sandboxed: boolean;
  /** The read deny rules' patterns: their paths are hidden from a sandboxed server. */
  denyRead: string[];
}

export interface ServerSpec {
  key: string;
  /** For people: "typescript-language-server", "pyright", "gopls". */
  name: string;
  argv: string[];
  /** Runs on Loupe's own Node (the Electron binary needs ELECTRON_RUN_AS_NODE). */
  node: boolean;
  source: 'bundled' | 'path' | 'config';
  initializationOptions?: unknown;
  /** Answers to `workspace/configuration`, by section. */
  settings?: Record<string, unknown>;
  /** The TypeScript it was given: Loupe's or the workspace's. */
  typescript?: { path: string; source: 'loupe' | 'workspace' };
}

/** Why no server serves a group here (null from `specFor` means no server serves it at all). */
export interface NoServer {
  key: string;
  reason: string;
}

const requireHere = createRequire(import.meta.url);

/** A file of a package Loupe ships, or null when the install lacks it. */
function shipped(pkg: string, file: string): string | null {
  try {
    const p = path.join(path.dirname(requireHere.resolve(`${pkg}/package.json`)), file);
    return existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

/** The group serving `rel` and the document's languageId, or null when none does. */
export function groupOf(rel: string, configured: Record<string, ConfiguredServer> = {}): { key: string; languageId: string } | null {
  const ext = path.extname(rel).toLowerCase();
  for (const [key, c] of Object.entries(configured)) {
    const id = GROUPS.find((g) => g.key === key)?.ids[ext];
    if (id) return { key, languageId: id };
    if (c.extensions?.some((e) => e.toLowerCase() === ext)) return { key, languageId: key };
  }
  for (const g of GROUPS) if (g.ids[ext]) return { key: g.key, languageId: g.ids[ext] };
  return null;
}

const isFile = (p: string) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/**
 * A program on PATH, never one the workspace provides: relative PATH entries ("." or "bin") and
 * entries inside the workspace are skipped, or opening a folder could run its own `gopls`.
 */
export function onPath(name: string, root: string, envPath = process.env.PATH ?? ''): string | null {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const resolved = path.resolve(dir);
    if (resolved === root || resolved.startsWith(root + path.sep)) continue;
    const p = path.join(resolved, name);
    if (isFile(p)) return p;
  }
  return null;
}

/** The Node that runs Loupe runs its Node servers (under Electron, as plain Node via ELECTRON_RUN_AS_NODE). */
function nodeArgv(script: string, flags: string[]): string[] {
  return [process.execPath, ...flags, script, '--stdio'];
}

function typescriptSpec(root: string, s: LspSettings, memoryMb: number): ServerSpec | NoServer {
  const cli = shipped('typescript-language-server', 'lib/cli.mjs');
  const own = shipped('typescript', 'lib/tsserver.js');
  const workspace = path.join(root, 'node_modules', 'typescript', 'lib', 'tsserver.js');
  // The server falls back to the workspace's TypeScript when the path it is given is not valid,
  // so without Loupe's own it does not start in a folder that is not trusted.
  const ts = s.trusted && isFile(workspace) ? { path: workspace, source: 'workspace' as const } : own ? { path: own, source: 'loupe' as const } : null;
  if (!cli || !ts) return { key: 'typescript', reason: 'typescript-language-server or typescript is missing from this installation' };
  return {
    key: 'typescript',
    name: 'typescript-language-server',
    argv: nodeArgv(cli, ['--max-old-space-size=512']),
    node: true,
    source: 'bundled',
    typescript: ts,
    initializationOptions: {
      hostInfo: 'loupe',
      tsserver: { path: ts.path },
      // Type acquisition runs npm; plugins come only from next to the TypeScript in use.
      disableAutomaticTypingAcquisition: true,
      maxTsServerMemory: memoryMb,
    },
  };
}

function pythonSpec(): ServerSpec | NoServer {
  const script = shipped('pyright', 'langserver.index.js');
  if (!script) return { key: 'python', reason: 'pyright is missing from this installation' };
  return {
    key: 'python',
    name: 'pyright',
    // pyright exits on any unhandled promise rejection, which Node's default turns fatal; the
    // editors that host it run it under Electron, where a rejection is only a warning.
    argv: nodeArgv(script, ['--max-old-space-size=2048', '--unhandled-rejections=warn']),
    node: true,
    source: 'bundled',
    settings: { python: { analysis: { diagnosticMode: 'openFilesOnly', autoSearchPaths: true } }, 'python.analysis': { diagnosticMode: 'openFilesOnly', autoSearchPaths: true }, pyright: {} },
  };
}

/**
 * How the server for group `key` starts here, why it cannot, or null when no server is known for
 * it. `memoryMb` bounds a TypeScript server's heap.
 */
export function specFor(key: string, root: string, s: LspSettings, memoryMb: number): ServerSpec | NoServer | null {
  const configured = s.configured[key];
  if (configured) {
    if (!s.trusted) return { key, reason: `the server command in .loupe/config.json applies once this folder is trusted` };
    const [program, ...args] = configured.command;
    const resolved = path.isAbsolute(program) ? program : program.includes('/') ? path.resolve(root, program) : onPath(program, root);
    if (!resolved) return { key, reason: `${program} (from .loupe/config.json) is not on PATH` };
    // "node server.js": the script names the server better than its interpreter.
    const script = /^(node|nodejs|python3?|bun|deno)$/.test(path.basename(program)) ? args.find((a) => !a.startsWith('-')) : undefined;
    return { key, name: path.basename(script ?? program), argv: [resolved, ...args], node: false, source: 'config' };
  }
  if (key === 'typescript') return typescriptSpec(root, s, memoryMb);
  if (key === 'python') return pythonSpec();
  const known = ON_PATH[key];
  if (!known) return null;
  const program = onPath(known.name, root);
  if (!program) return null;
  // These build the project to know it (build scripts, proc macros, `go list`): repository code.
  if (!s.trusted && !s.sandboxed) return { key, reason: `${known.name} runs the project's build to analyse it; it starts in a trusted folder or inside the OS sandbox` };
  return { key, name: known.name, argv: [program, ...known.args], node: false, source: 'path' };
}

export const isNoServer = (x: ServerSpec | NoServer): x is NoServer => 'reason' in x;
