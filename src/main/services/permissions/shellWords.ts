// What a shell word will be when it runs, if that can be known without running anything.
// `\rm`, `r''m` and `"rm"` are all `rm`; `$X`, `$(…)`, `$'\x72m'` and globs are not knowable.
import type { BashNode } from './bashParser';

/** Unquoted backslashes quote the next character; backslash-newline disappears. */
function unescapeBare(text: string): string {
  return text.replace(/\\(\n|.)/g, (_, c: string) => (c === '\n' ? '' : c));
}

/** Inside double quotes only \$ \` \" \\ and backslash-newline are escapes. */
function unescapeDouble(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

export function staticWord(node: BashNode): string | null {
  switch (node.type) {
    case 'word':
      return unescapeBare(node.text);
    case 'number':
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string': {
      let out = '';
      for (const c of node.children) {
        if (c.type === '"') continue;
        if (c.type === 'string_content') out += unescapeDouble(c.text);
        else return null;
      }
      return out;
    }
    case 'concatenation': {
      let out = '';
      for (const c of node.children) {
        const part = staticWord(c);
        if (part === null) return null;
        out += part;
      }
      return out;
    }
    default:
      // Expansions, substitutions, $'…', $"…", brace and arithmetic expansions.
      return null;
  }
}

/** An unquoted word with glob characters names whatever files happen to match. */
export function hasGlob(node: BashNode): boolean {
  if (node.type === 'word') return /(^|[^\\])[*?[]/.test(node.text);
  if (node.type === 'concatenation') return node.children.some(hasGlob);
  return false;
}
