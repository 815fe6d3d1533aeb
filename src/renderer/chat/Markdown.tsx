import { memo, type ReactNode } from 'react';
import { parseMarkdown, type Inline } from './markdown';

function inline(parts: Inline[]): ReactNode[] {
  return parts.map((p, i) => {
    if (p.t === 'code') return <code key={i}>{p.v}</code>;
    if (p.t === 'strong') return <strong key={i}>{p.v}</strong>;
    if (p.t === 'em') return <em key={i}>{p.v}</em>;
    return p.v;
  });
}

/** Model text as Markdown-ish blocks; React escapes every string, nothing is injected as HTML. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="md">
      {parseMarkdown(text).map((b, i) => {
        switch (b.t) {
          case 'code':
            return (
              <pre key={i} className="md-code" data-lang={b.lang || undefined}>
                {b.lang && <span className="md-code-lang">{b.lang}</span>}
                <code>{b.text}</code>
              </pre>
            );
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
