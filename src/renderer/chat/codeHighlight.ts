// Syntax colour for fenced code in chat messages, by Monaco's colorizer. Monaco is loaded with
// `import()` on the first code block, so it stays out of the chat's initial bundle. The
// colorizer escapes the source itself: its HTML is the only HTML the chat ever injects.
import type * as MonacoSetup from '../viewer/monacoSetup';

/** What the colorizer needs to know of Monaco's language registry. */
export interface LanguageInfo {
  id: string;
  aliases?: string[];
  extensions?: string[];
}

/** Fence tags models write that Monaco knows by no id, alias or extension. */
const FENCE_ALIASES: Record<string, string> = {
  zsh: 'shell',
  console: 'shell',
  'shell-session': 'shell',
  shellscript: 'shell',
  ps: 'powershell',
  ps1: 'powershell',
  golang: 'go',
  'c#': 'csharp',
  'f#': 'fsharp',
  objc: 'objective-c',
  proto: 'protobuf',
  tf: 'hcl',
  jsonc: 'json',
  json5: 'json',
  svg: 'xml',
  vue: 'html',
};

/**
 * The Monaco language id for a fence's info tag (`ts`, `Python`, `bash`, `yml`…): by id,
 * then alias, then file extension, then the few common tags above; 'plaintext' when none fits.
 */
export function resolveLanguage(tag: string, languages: readonly LanguageInfo[]): string {
  const t = tag.trim().toLowerCase();
  if (!t) return 'plaintext';
  const ids = new Set(languages.map((l) => l.id));
  if (ids.has(t)) return t;
  const byAlias = languages.find((l) => l.aliases?.some((a) => a.toLowerCase() === t));
  if (byAlias) return byAlias.id;
  const byExt = languages.find((l) => l.extensions?.some((e) => e.toLowerCase() === `.${t}`));
  if (byExt) return byExt.id;
  const alias = FENCE_ALIASES[t];
  return alias && ids.has(alias) ? alias : 'plaintext';
}

/**
 * The part of a code block to colour now. A settled block (closed, or its message done) is
 * coloured whole; one still streaming only up to its last complete line, so a token in the
 * middle of a line never needs a new pass. '' when there is nothing worth colouring yet.
 */
export function colorizableText(text: string, settled: boolean): string {
  if (settled) return text;
  const nl = text.lastIndexOf('\n');
  return nl < 0 ? '' : text.slice(0, nl);
}

/** Monaco ends every line with `<br/>`; the block's own newlines come from the source. */
export function trimColorizedHtml(html: string): string {
  return html.endsWith('<br/>') ? html.slice(0, -5) : html;
}

/**
 * Past this the block stays plain: Monaco tokenizes it in one go on the main thread, and a
 * block this size (~700 lines) already costs tens of milliseconds.
 */
export const MAX_COLORIZE_CHARS = 30_000;

type Monaco = typeof MonacoSetup;

let loading: Promise<Monaco> | null = null;

/** Starts loading Monaco (once); a code block calls it as soon as its fence appears. */
export function loadMonaco(): Promise<Monaco> {
  // monacoSetup makes loupe-dark the current theme, which the token classes (.mtk1…) colour by.
  loading ??= import('../viewer/monacoSetup');
  loading.catch(() => (loading = null));
  return loading;
}

/**
 * Least recently used first, bounded by the characters held (source and HTML), so a session
 * of long blocks cannot pile up memory.
 */
export class ColorizedCache {
  private readonly map = new Map<string, string>();
  private held = 0;

  constructor(private readonly budget: number) {}

  get(key: string): string | undefined {
    const html = this.map.get(key);
    if (html !== undefined) {
      this.map.delete(key);
      this.map.set(key, html);
    }
    return html;
  }

  set(key: string, html: string): void {
    const old = this.map.get(key);
    if (old !== undefined) {
      this.map.delete(key);
      this.held -= key.length + old.length;
    }
    this.map.set(key, html);
    this.held += key.length + html.length;
    for (const [k, v] of this.map) {
      if (this.held <= this.budget || k === key) break;
      this.map.delete(k);
      this.held -= k.length + v.length;
    }
  }

  get size(): number {
    return this.map.size;
  }
}

/** Settled blocks, by language and text: a remounted chat (tab switch) shows colour at once. */
const done = new ColorizedCache(8_000_000);

const key = (text: string, lang: string) => `${lang}\u0000${text}`;

/** The colorized HTML of a settled block if it has been made already. */
export function peekColorized(text: string, lang: string): string | undefined {
  return done.get(key(text, lang));
}

/** Each language's grammar loads on first use; colouring '' once waits for it. */
const grammars = new Map<string, Promise<unknown>>();

export interface Colorized {
  html: string;
  /** How long the colouring itself took, grammar loading aside. */
  ms: number;
}

/**
 * Monaco's HTML for `text` (escaped by Monaco, one span per token), without the final line
 * break. `remember` keeps it for `peekColorized`; streaming prefixes are not worth keeping.
 */
export async function colorize(text: string, lang: string, remember: boolean): Promise<Colorized> {
  const cached = done.get(key(text, lang));
  if (cached !== undefined) return { html: cached, ms: 0 };
  const { monaco, monacoLanguage } = await loadMonaco();
  const id = monacoLanguage(resolveLanguage(lang, monaco.languages.getLanguages()));
  let grammar = grammars.get(id);
  if (!grammar) grammars.set(id, (grammar = monaco.editor.colorize('', id, {})));
  await grammar;
  const start = performance.now();
  const html = trimColorizedHtml(await monaco.editor.colorize(text, id, { tabSize: 4 }));
  const ms = performance.now() - start;
  if (remember) done.set(key(text, lang), html);
  return { html, ms };
}
