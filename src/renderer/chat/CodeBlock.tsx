import { memo, useEffect, useRef, useState, type ClipboardEvent } from 'react';
import { CopyIcon } from '../app/icons';
import { colorizableText, colorize, loadMonaco, MAX_COLORIZE_CHARS, peekColorized } from './codeHighlight';

/**
 * While a block streams, its complete lines are coloured again at most this often, and never
 * sooner than ten times the last pass took: colouring a long block keeps to ~10% of the thread.
 */
const STREAM_RECOLOR_MS = 300;
const COPIED_MS = 1500;

interface Colored {
  lang: string;
  /** The source the HTML colours: the whole block, or its complete lines while it streams. */
  src: string;
  html: string;
}

/**
 * Monaco's colouring of a code block, or null while there is none yet (the block shows plain
 * text meanwhile). A settled block is coloured once; a streaming one at most every
 * STREAM_RECOLOR_MS and only up to its last complete line, never on every token.
 */
function useColorized(text: string, lang: string, settled: boolean): Colored | null {
  const target = colorizableText(text, settled);
  const [colored, setColored] = useState<Colored | null>(() => {
    const html = settled ? peekColorized(target, lang) : undefined;
    return html === undefined ? null : { lang, src: target, html };
  });
  const lastRun = useRef(0);
  const lastCost = useRef(0);
  const upToDate = colored !== null && colored.lang === lang && colored.src === target;

  useEffect(() => {
    // Monaco starts loading when the fence appears, so the colour is ready when the block closes.
    loadMonaco().catch(() => undefined);
  }, []);

  useEffect(() => {
    if (!target || upToDate || target.length > MAX_COLORIZE_CHARS) return;
    const wait = settled ? 0 : Math.max(0, lastRun.current + Math.max(STREAM_RECOLOR_MS, 10 * lastCost.current) - performance.now());
    const timer = setTimeout(() => {
      lastRun.current = performance.now();
      colorize(target, lang, settled).then(
        ({ html, ms }) => {
          lastCost.current = ms;
          // A slower, shorter pass never replaces a longer one already shown.
          setColored((prev) => (prev && prev.lang === lang && prev.src.length > target.length && prev.src.startsWith(target) ? prev : { lang, src: target, html }));
        },
        () => undefined,
      );
    }, wait);
    return () => clearTimeout(timer);
  }, [target, lang, settled, upToDate]);

  // The colour covers whole lines: what follows it starts on a line of its own.
  if (!colored || colored.lang !== lang || !text.startsWith(colored.src)) return null;
  return text.length === colored.src.length || text[colored.src.length] === '\n' ? colored : null;
}

/** Monaco renders spaces as no-break spaces; a selection copied by hand gets plain ones. */
function copyPlainSpaces(e: ClipboardEvent<HTMLElement>) {
  const selected = window.getSelection()?.toString() ?? '';
  if (!selected.includes('\u00a0')) return;
  e.preventDefault();
  e.clipboardData.setData('text/plain', selected.replace(/\u00a0/g, ' '));
}

function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), COPIED_MS);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className="md-code-copy"
      data-testid="chat-code-copy"
      title="Copy code"
      aria-label="Copy code"
      onClick={() => {
        const write = navigator.clipboard?.writeText(text) ?? Promise.reject(new Error('no clipboard'));
        write.then(
          () => setState('copied'),
          () => setState('failed'),
        );
      }}
    >
      <CopyIcon size={12} />
      <span>{state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}</span>
    </button>
  );
}

/**
 * A fenced code block: language label, Copy, and the code coloured by Monaco. Plain text is
 * shown first and swapped for the coloured HTML once it is ready. That HTML is Monaco's,
 * which escapes the source; model text itself is never injected as HTML.
 */
export const CodeBlock = memo(function CodeBlock({ lang, text, settled }: { lang: string; text: string; settled: boolean }) {
  const colored = useColorized(text, lang, settled);
  // What the colour does not cover yet: all of it, or the lines after the coloured ones.
  const rest = colored ? (colored.src.length < text.length ? text.slice(colored.src.length + 1) : null) : text;
  return (
    <div className="md-code" data-testid="chat-code-block" data-lang={lang || undefined} data-colored={colored ? (rest === null ? 'full' : 'partial') : undefined}>
      <div className="md-code-head">
        <span className="md-code-lang">{lang.toLowerCase() || 'text'}</span>
        <CopyButton text={text} />
      </div>
      <pre onCopy={copyPlainSpaces}>
        {/* Two blocks: a token streaming into the plain tail lays out the tail alone, not
            every token span of the coloured lines above it. */}
        <code>
          {colored && <span className="md-code-lines" dangerouslySetInnerHTML={{ __html: colored.html }} />}
          {rest !== null && <span className="md-code-lines md-code-tail">{rest}</span>}
        </code>
      </pre>
    </div>
  );
});
