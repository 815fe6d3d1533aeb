// Where model text may be cut into independently rendered Markdown pieces.

/**
 * A fence closes on a line of the same character, at least as long, and nothing else: a
 * nested "```ts" inside a ~~~ block, or "``" still streaming, leaves the block open.
 */
export function closesFence(line: string, opener: string): boolean {
  const t = line.trim();
  return t.length >= opener.length && t[0] === opener[0] && /^(`+|~+)$/.test(t);
}

/**
 * Model text cut into pieces at blank lines outside fenced blocks. Each piece is rendered (and
 * parsed) once and kept while the rest streams in, so a long answer costs one parse per block
 * instead of one of the whole text per frame. Lists and quotes with blank lines inside render
 * as consecutive lists or quotes, which look the same.
 */
export function splitBlocks(src: string): string[] {
  const pieces: string[] = [];
  let fence: string | null = null;
  let start = 0;
  let at = 0;
  for (const line of src.split('\n')) {
    const end = at + line.length + 1;
    if (fence) {
      if (closesFence(line, fence)) fence = null;
    } else {
      const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
      if (open) fence = open[1];
      else if (!line.trim() && end <= src.length && src.slice(start, at).trim()) {
        pieces.push(src.slice(start, end));
        start = end;
      }
    }
    at = end;
  }
  if (start < src.length) pieces.push(src.slice(start));
  return pieces;
}
