// Reasoning written into the answer text: `<think>…</think>` (vLLM without a reasoning parser,
// llama.cpp, LM Studio, older Ollama), or only the closing tag when the chat template put the
// opening one in the prompt. Streamed text is split as it comes; a tag cut between two chunks
// is held back until the next one decides it.
const OPEN = '<think>';
const CLOSE = '</think>';

export interface SplitPiece {
  content: string;
  reasoning: string;
}

/** The longest suffix of `text` that is a proper prefix of `tag` (a tag possibly cut in two). */
function heldSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (tag.startsWith(text.slice(-n))) return n;
  return 0;
}

export class ThinkSplitter {
  private inThink: boolean;
  private held = '';
  /** A think block was seen: later tags are the answer's own text. */
  private done = false;
  /** A closing tag came without an opening one: everything before it was reasoning. */
  lonelyClose = false;
  private spoke = false;
  /** After a think block: the blank lines before the answer are not part of it. */
  private trimStart = false;

  /** No text yet: a block the template opened may still turn out to have been parsed out by the server. */
  private fresh = true;

  /** `startInThink`: the endpoint's template opens the think block in the prompt. */
  constructor(startInThink = false) {
    this.inThink = startInThink;
  }

  /** Before any text: the text is not inside a think block after all (the server separated it). */
  notInThink(): void {
    if (this.fresh) this.inThink = false;
  }

  push(text: string): SplitPiece {
    if (text) this.fresh = false;
    let s = this.held + text;
    this.held = '';
    const out: SplitPiece = { content: '', reasoning: '' };
    for (;;) {
      if (this.inThink) {
        const end = s.indexOf(CLOSE);
        if (end === -1) {
          const keep = heldSuffix(s, CLOSE);
          out.reasoning += s.slice(0, s.length - keep);
          this.held = s.slice(s.length - keep);
          return out;
        }
        out.reasoning += s.slice(0, end);
        s = s.slice(end + CLOSE.length);
        this.trimStart = true;
        this.inThink = false;
        this.done = true;
        continue;
      }
      if (this.done) {
        this.emit(out, s);
        return out;
      }
      const open = s.indexOf(OPEN);
      const close = s.indexOf(CLOSE);
      if (close !== -1 && (open === -1 || close < open)) {
        // A closing tag with no opening one: the text before it was reasoning.
        this.lonelyClose = true;
        this.done = true;
        out.reasoning += s.slice(0, close);
        s = s.slice(close + CLOSE.length);
        this.trimStart = true;
        continue;
      }
      // Only a block at the start is reasoning; a tag inside the answer is the answer's text.
      if (open !== -1 && (this.spoke || s.slice(0, open).trim())) {
        this.done = true;
        continue;
      }
      if (open !== -1) {
        out.content += s.slice(0, open);
        s = s.slice(open + OPEN.length);
        this.inThink = true;
        continue;
      }
      const keep = Math.max(heldSuffix(s, OPEN), heldSuffix(s, CLOSE));
      out.content += s.slice(0, s.length - keep);
      if (out.content.trim()) this.spoke = true;
      this.held = s.slice(s.length - keep);
      return out;
    }
  }

  /** The end of the stream: whatever was held back is what it looked like. */
  flush(): SplitPiece {
    const rest = this.held;
    this.held = '';
    if (this.inThink) return { content: '', reasoning: rest };
    const out = { content: '', reasoning: '' };
    this.emit(out, rest);
    return out;
  }

  private emit(out: SplitPiece, text: string): void {
    const t = this.trimStart ? text.replace(/^\s+/, '') : text;
    if (t) this.trimStart = false;
    out.content += t;
  }
}

/** Splits a whole text at once (a non-streamed answer, a stored message). */
export function splitThink(text: string, startInThink = false): SplitPiece {
  const s = new ThinkSplitter(startInThink);
  const a = s.push(text);
  const b = s.flush();
  return { content: a.content + b.content, reasoning: a.reasoning + b.reasoning };
}
