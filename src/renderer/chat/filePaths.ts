// Workspace file paths in model text (`src/a.ts`, src/a.ts:12) become links that open the
// viewer at that line. A rehype step over the rendered tree: it only ever adds link elements
// around text the model wrote, so nothing it does can turn text into HTML.
import type { Element, ElementContent, Root } from 'hast';

/** Extensions a bare file name (no folder) must have to count as a path: `console.log` is code, `package.json` a file. */
const BARE_EXT = 'ts|tsx|js|jsx|mjs|cjs|json|md|py|go|rs|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|css|scss|html|vue|svelte|yml|yaml|toml|sh|txt|sql|lock';
const SEGMENT = String.raw`[\w@-][\w.@-]*`;
const WITH_DIR = String.raw`(?:\.\.?/)?(?:${SEGMENT}/)+${SEGMENT}\.[A-Za-z][A-Za-z0-9]{0,7}`;
const BARE = String.raw`${SEGMENT}\.(?:${BARE_EXT})`;
const LINE = String.raw`(?::(\d+)(?::\d+)?)?`;

/** In running text a path needs a folder, so "e.g." and "Node.js" stay words. */
const IN_TEXT = new RegExp(String.raw`(?<![\w/.@-])(${WITH_DIR})${LINE}(?![\w/])`, 'g');
/** An inline code span that is a path and nothing else. */
const WHOLE_CODE = new RegExp(String.raw`^(${WITH_DIR}|${BARE})${LINE}$`);

export interface FileRef {
  path: string;
  line?: number;
}

/** A reference found in text, with the words it was written as. */
export type FileMention = FileRef & { text: string };

const ref = (path: string, line: string | undefined): FileRef => ({ path: path.replace(/^\.\//, ''), ...(line ? { line: Number(line) } : {}) });

/** The file an inline code span names, if it is exactly a path. */
export function codeFileRef(text: string): FileRef | null {
  const m = WHOLE_CODE.exec(text.trim());
  return m ? ref(m[1], m[2]) : null;
}

/** Splits running text into plain pieces and file references. */
export function splitFileRefs(text: string): (string | FileMention)[] {
  const out: (string | FileMention)[] = [];
  let at = 0;
  for (const m of text.matchAll(IN_TEXT)) {
    if (m.index > at) out.push(text.slice(at, m.index));
    out.push({ ...ref(m[1], m[2]), text: m[0] });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

const link = (r: FileRef, children: ElementContent[]): Element => ({
  type: 'element',
  tagName: 'a',
  properties: { href: '#', dataPath: r.path, ...(r.line ? { dataLine: r.line } : {}) },
  children,
});

const textOf = (e: Element) => (e.children.length === 1 && e.children[0].type === 'text' ? e.children[0].value : null);

function walk(parent: Root | Element): void {
  const out: (Root['children'][number] | ElementContent)[] = [];
  for (const child of parent.children as (Root['children'][number] | ElementContent)[]) {
    if (child.type === 'text' && parent.type === 'element') {
      for (const piece of splitFileRefs(child.value)) out.push(typeof piece === 'string' ? { type: 'text', value: piece } : link(piece, [{ type: 'text', value: piece.text }]));
      continue;
    }
    if (child.type === 'element') {
      if (child.tagName === 'a' || child.tagName === 'pre') {
        out.push(child);
        continue;
      }
      if (child.tagName === 'code') {
        const text = textOf(child);
        const r = text === null ? null : codeFileRef(text);
        out.push(r ? link(r, [child]) : child);
        continue;
      }
      walk(child);
    }
    out.push(child);
  }
  parent.children = out as never;
}

/** The rehype plugin: `rehypePlugins={[rehypeFileLinks]}`. */
export function rehypeFileLinks() {
  return (tree: Root) => walk(tree);
}
