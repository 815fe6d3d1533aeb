import { memo, type ReactNode } from 'react';
import { CodeBlock } from './CodeBlock';
import { parseMarkdown, type Inline } from './markdown';

function inline(parts: Inline[]): ReactNode[] {
  return parts.map((p, i) => {
    if (p.t === 'code') return <code key={i}>{p.v}</code>;
    if (p.t === 'strong') return <strong key={i}>{p.v}</strong>;
    if (p.t === 'em') return <em key={i}>{p.v}</em>;
    return p.v;
  });
}

/**
 * Model text as Markdown-ish blocks. React escapes every string; the one HTML injected is the
 * colorizer's for code blocks, which Monaco escapes. `streaming`: the message is still coming.
 */
export const Markdown = memo(function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }) {
  return (
    <div className="md">
      {parseMarkdown(text).map((b, i) => {
        switch (b.t) {
          case 'code':
            // Settled once its fence closes or the message ends: only then coloured whole.
            return <CodeBlock key={i} lang={b.lang} text={b.text} settled={!b.open || !streaming} />;
          case 'heading':
            return (
              <p key={i} className={`md-h md-h${b.level}`}>
                {inline(b.inline)}
              </p>
            );
          case 'list': {
            const Tag = b.ordered ? 'ol' : 'ul';
            return (
              <Tag key={i}>
                {b.items.map((it, j) => (
                  <li key={j}>{inline(it)}</li>
                ))}
              </Tag>
            );
          }
          default:
            return <p key={i}>{inline(b.inline)}</p>;
        }
      })}
    </div>
  );
});
