// tree-sitter-bash (WASM) loaded once per process: the grammar is ~1.5 MB and parsing a
// command takes microseconds once it is in memory.
import { createRequire } from 'node:module';
import { Language, Parser, type Node } from 'web-tree-sitter';

// Not named `require`: the bundler declares one of its own at module scope.
const resolveFrom = createRequire(import.meta.url);

export interface BashParser {
  /** Parses, hands the root to `fn`, then frees the tree (WASM memory is not collected). */
  withTree<T>(source: string, fn: (root: Node) => T): T;
}

let loading: Promise<BashParser> | null = null;

async function load(): Promise<BashParser> {
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
