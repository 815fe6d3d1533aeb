// tree-sitter-bash (WASM) loaded once per process: the grammar is ~1.5 MB and parsing a
// command takes microseconds once it is in memory.
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import type { Node } from 'web-tree-sitter';

// Not named `require`: the bundler declares one of its own at module scope.
const resolveFrom = createRequire(import.meta.url);

export interface BashParser {
  /** Parses, hands the root to `fn`, then frees the tree (WASM memory is not collected). */
  withTree<T>(source: string, fn: (root: Node) => T): T;
}

let loading: Promise<BashParser> | null = null;

async function load(): Promise<BashParser> {
  // V8 compiles WASM twice: Liftoff at once, then TurboFan on background threads. For this
  // grammar the second pass cost ~1.3 s of CPU per process, and Node waits for it before a
  // process may exit (`loupe run` lingered 1-3 s after its answer). Liftoff's code parses a
  // command in microseconds all the same. The flag is read when a module compiles; this process
  // compiles no other WASM.
  setFlagsFromString('--liftoff-only');
  // Loaded with the first command to judge, not when the host starts.
  const { Language, Parser } = await import('web-tree-sitter');
  const runtime = resolveFrom.resolve('web-tree-sitter/web-tree-sitter.wasm');
  await Parser.init({ locateFile: () => runtime });
  const bash = await Language.load(resolveFrom.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser().setLanguage(bash);
  return {
    withTree(source, fn) {
      const tree = parser.parse(source);
      if (!tree) throw new Error('tree-sitter returned no tree');
      try {
        return fn(tree.rootNode);
      } finally {
        tree.delete();
      }
    },
  };
}

export function bashParser(): Promise<BashParser> {
  loading ??= load().catch((err) => {
    loading = null;
    throw err;
  });
  return loading;
}

export type { Node as BashNode };
