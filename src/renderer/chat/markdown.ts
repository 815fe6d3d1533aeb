// A tiny, safe Markdown subset for model text: fenced code, headings, bullet and numbered
// lists, paragraphs, and inline `code`, **bold** and *italic*. It produces a block tree the
// component renders as React elements; model text is never turned into HTML.

export type Inline = { t: 'text' | 'code' | 'strong' | 'em'; v: string };

export type Block =
  | { t: 'code'; lang: string; text: string; open: boolean }
  | { t: 'heading'; level: number; inline: Inline[] }
  | { t: 'list'; ordered: boolean; items: Inline[][] }
  | { t: 'para'; inline: Inline[] };

const INLINE_RE = /(`[^`\n]+`|\*\*[^*\n]+\*\*|\*[^*\s][^*\n]*\*)/g;

export function parseInline(text: string): Inline[] {
  const out: Inline[] = [];
  let at = 0;
  for (const m of text.matchAll(INLINE_RE)) {
    if (m.index > at) out.push({ t: 'text', v: text.slice(at, m.index) });
    const s = m[0];
    if (s.startsWith('`')) out.push({ t: 'code', v: s.slice(1, -1) });
    else if (s.startsWith('**')) out.push({ t: 'strong', v: s.slice(2, -2) });
    else out.push({ t: 'em', v: s.slice(1, -1) });
    at = m.index + s.length;
  }
  if (at < text.length) out.push({ t: 'text', v: text.slice(at) });
  return out;
}

const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;

/**
 * A fence closes on a line of the same character, at least as long, and nothing else: a
 * nested "```ts" inside a ~~~ block, or "``" still streaming, leaves the block open.
 */
export function closesFence(line: string, opener: string): boolean {
  const t = line.trim();
  return t.length >= opener.length && t[0] === opener[0] && /^(`+|~+)$/.test(t);
}

export function parseMarkdown(src: string): Block[] {
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  const flush = () => {
    if (para.length) blocks.push({ t: 'para', inline: parseInline(para.join('\n')) });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(/^\s*(```+|~~~+)\s*([\w+#.-]*)/);
    if (fence) {
      flush();
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && !closesFence(lines[j], fence[1])) body.push(lines[j++]);
      blocks.push({ t: 'code', lang: fence[2] ?? '', text: body.join('\n'), open: j >= lines.length });
      i = j;
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      flush();
      blocks.push({ t: 'heading', level: heading[1].length, inline: parseInline(heading[2]) });
      continue;
    }
    const item = line.match(BULLET) ?? line.match(NUMBERED);
    if (item) {
      flush();
      const ordered = !BULLET.test(line);
      const prev = blocks[blocks.length - 1];
      if (prev?.t === 'list' && prev.ordered === ordered) prev.items.push(parseInline(item[1]));
      else blocks.push({ t: 'list', ordered, items: [parseInline(item[1])] });
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    para.push(line);
  }
  flush();
  return blocks;
}
