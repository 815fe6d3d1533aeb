import { memo, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import type { Element } from 'hast';
import { useApp } from '../store';
import { CodeBlock } from './CodeBlock';
import { rehypeFileLinks } from './filePaths';
import { closesFence, splitBlocks } from './markdown';

const REMARK = [remarkGfm];
const REHYPE = [rehypeFileLinks];

const textOf = (node: Element | undefined): string =>
  (node?.children ?? []).map((c) => (c.type === 'text' ? c.value : c.type === 'element' ? textOf(c) : '')).join('');

/** One Markdown text through react-markdown: React elements only; HTML in it stays text. */
function Rendered({ source, streaming }: { source: string; streaming: boolean }) {
  const openFilePath = useApp((s) => s.openFilePath);
  const components = useMemo<Components>(
    () => ({
      pre({ node }) {
        const code = node?.children.find((c): c is Element => c.type === 'element' && c.tagName === 'code');
        const cls = code?.properties?.className;
        const lang = (Array.isArray(cls) ? cls.map(String) : []).find((c) => c.startsWith('language-'))?.slice('language-'.length) ?? '';
        const text = textOf(code).replace(/\n$/, '');
        // Settled once its fence closes (or the message ends): only then coloured whole.
        const end = node?.position?.end.offset;
        const start = node?.position?.start.offset;
        const written = start !== undefined && end !== undefined ? source.slice(start, end) : '';
        const opener = /^\s*(`{3,}|~{3,})/.exec(written)?.[1] ?? '```';
        const lastLine = written.slice(written.lastIndexOf('\n') + 1);
        const settled = !streaming || (written.includes('\n') && closesFence(lastLine, opener));
        return <CodeBlock lang={lang} text={text} settled={settled} />;
      },
      a({ node: _node, href, children, ...rest }) {
        const path = (rest as Record<string, unknown>)['data-path'];
        if (typeof path === 'string') {
          const line = Number((rest as Record<string, unknown>)['data-line']) || undefined;
          return (
            <a
              href="#"
              className="md-file"
              data-testid="chat-file-link"
              data-path={path}
              data-line={line}
              title={`Open ${path}${line ? ` at line ${line}` : ''}`}
              onClick={(e) => {
                e.preventDefault();
                void openFilePath(path, line);
              }}
            >
              {children}
            </a>
          );
        }
        return (
          <a href={href} target="_blank" rel="noreferrer noopener" title={href}>
            {children}
          </a>
        );
      },
      input({ node: _node, ...props }) {
        // Task list boxes show the state the model wrote; they are not a form.
        return <input {...props} disabled />;
      },
      table({ node: _node, children }) {
        return (
          <div className="md-table-wrap">
            <table>{children}</table>
          </div>
        );
      },
    }),
    [openFilePath, source, streaming],
  );
  return (
    <ReactMarkdown remarkPlugins={REMARK} rehypePlugins={REHYPE} components={components}>
      {source}
    </ReactMarkdown>
  );
}

const Piece = memo(Rendered);

/** While a piece streams it is parsed at most this often; tokens arriving in between wait for the next pass. */
const STREAM_PARSE_MS = 60;

/** The piece still streaming: parsed again at most every STREAM_PARSE_MS, not on every frame of tokens. */
function StreamingPiece({ source }: { source: string }) {
  const [shown, setShown] = useState(source);
  const last = useRef(0);
  useEffect(() => {
    const wait = Math.max(0, last.current + STREAM_PARSE_MS - performance.now());
    const timer = setTimeout(() => {
      last.current = performance.now();
      setShown(source);
    }, wait);
    return () => clearTimeout(timer);
  }, [source]);
  return <Piece source={shown} streaming />;
}

/**
 * Model text as GitHub-flavoured Markdown: tables, task lists, quotes, links, code coloured by
 * Monaco, file paths that open the viewer. Rendered in pieces cut at blank lines (splitBlocks):
 * a piece is parsed once, so only the last one is parsed again while the text streams.
 */
export const Markdown = memo(function Markdown({ text, streaming = false }: { text: string; streaming?: boolean }): ReactNode {
  const pieces = splitBlocks(text);
  return (
    <div className="md">
      {pieces.map((piece, i) =>
        streaming && i === pieces.length - 1 ? <StreamingPiece key={i} source={piece} /> : <Piece key={i} source={piece} streaming={false} />,
      )}
    </div>
  );
});
