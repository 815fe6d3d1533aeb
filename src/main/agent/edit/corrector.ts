// The model's corrections of a failed match (docs/architecture.md, edit pipeline step 7):
// internal calls, never tools, on the agent's model, one attempt each, abortable, cached. Deciding whether an answer is accepted is
// the pipeline's job; this only asks, caches and logs.
import { AbortedError } from '../../errors';
import { sha256 } from '../../services/files/hash';
import type { JsonChat } from '../llm/jsonChat';
import { clip, type Logger } from '../../services/log/logger';
import { LruCache } from './lru';
import { SYSTEM, escapingPrompt, newStringPrompt, oldStringPrompt } from './prompts';

/** Counts the model requests one edit makes (cache hits are free). */
export interface CorrectionStats {
  calls: number;
}

interface Common {
  file: string;
  fileHash: string;
  signal: AbortSignal;
  stats: CorrectionStats;
}

export interface EditCorrector {
  /** R2: an exact, literal, unique snippet of the file, or null/'' when unsure. */
  correctOldString(a: Common & { fileContent: string; oldStr: string }): Promise<string | null>;
  /** R3: new_str adjusted to the corrected old_str. */
  adjustNewString(a: Common & { originalOld: string; correctedOld: string; newStr: string }): Promise<string | null>;
  /** R4: new_str with its escaping repaired. */
  correctEscaping(a: Common & { newStr: string; replaced: string }): Promise<string | null>;
}

export const CACHE_SIZE = 50;
/** Files larger than this are not sent to the model whole; R2 is skipped for them. */
export const MAX_PROMPT_FILE_CHARS = 200_000;

export class LlmEditCorrector implements EditCorrector {
  private readonly cache = new LruCache<string, string | null>(CACHE_SIZE);

  constructor(
    private readonly chat: JsonChat,
    private readonly logger: Logger,
  ) {}

  correctOldString(a: Common & { fileContent: string; oldStr: string }): Promise<string | null> {
    if (a.fileContent.length > MAX_PROMPT_FILE_CHARS) {
      this.logger.info('edit.correction.skipped', { kind: 'old_string', file: a.file, why: 'file too large for the prompt' });
      return Promise.resolve(null);
    }
    return this.ask('old_string', 'corrected_target_snippet', oldStringPrompt(a.fileContent, a.oldStr), [a.oldStr], a);
  }

  adjustNewString(a: Common & { originalOld: string; correctedOld: string; newStr: string }): Promise<string | null> {
    return this.ask('new_string', 'corrected_new_string', newStringPrompt(a.originalOld, a.correctedOld, a.newStr), [a.originalOld, a.correctedOld, a.newStr], a);
  }

  correctEscaping(a: Common & { newStr: string; replaced: string }): Promise<string | null> {
    return this.ask('new_string_escaping', 'corrected_new_string_escaping', escapingPrompt(a.newStr, a.replaced), [a.newStr, a.replaced], a);
  }

  private async ask(kind: string, field: string, prompt: string, inputs: string[], c: Common): Promise<string | null> {
    const key = sha256(JSON.stringify([kind, c.fileHash, ...inputs]));
    if (this.cache.has(key)) {
      const answer = this.cache.get(key)!;
      this.logger.info('edit.correction', { kind, file: c.file, cached: true, answer: answer === null ? null : clip(answer) });
      return answer;
    }
    if (c.signal.aborted) throw new AbortedError('The edit');
    c.stats.calls++;
    this.logger.info('edit.correction.ask', { kind, file: c.file, input: clip(inputs[inputs.length - 1]) });
    try {
      const json = await this.chat({ system: SYSTEM, user: prompt, signal: c.signal });
      const value = typeof json[field] === 'string' ? (json[field] as string) : null;
      this.cache.set(key, value);
      this.logger.info('edit.correction', { kind, file: c.file, cached: false, answer: value === null ? null : clip(value) });
      return value;
    } catch (err) {
      if (c.signal.aborted) throw new AbortedError('The edit');
      this.logger.warn('edit.correction.failed', { kind, file: c.file, error: (err as Error).message });
      return null;
    }
  }
}
