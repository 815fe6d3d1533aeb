// Where streamed Markdown may be cut: the rendered prefix before the cut never changes again,
// so only the tail is parsed per frame.

/**
 * A fence closes on a line of the same character, at least as long, and nothing else: a
 * nested "```ts" inside a ~~~ block, or "``" still streaming, leaves the block open.
 */
export function closesFence(line: string, opener: string): boolean {
  const t = line.trim();
  return t.length >= opener.length && t[0] === opener[0] && /^(`+|~+)$/.test(t);
}

/**
 * The length of the longest prefix that ends at a blank line outside any fenced block: Markdown
 * blocks before it are complete whatever follows (lists and quotes aside, which at worst
 * render as two while streaming and as one once the message ends).
 */
export function settledPrefix(src: string): number {
  let cut = 0;
  let fence: string | null = null;
  let at = 0;
  for (const line of src.split('\n')) {
    const end = at + line.length + 1;
    if (fence) {
      if (closesFence(line, fence)) fence = null;
    } else {
      const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
      if (open) fence = open[1];
      else if (!line.trim() && end <= src.length) cut = end;
    }
    at = end;
  }
  return cut;
}
