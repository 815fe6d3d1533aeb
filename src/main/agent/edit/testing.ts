// Helpers for the pipeline's unit tests: run it on a string, with or without a scripted corrector.
import { canonicalise, toLf } from './canonical';
import type { EditCorrector } from './corrector';
import { LineIndex } from './lines';
import { nullLogger } from '../../services/log/logger';
import { runPipeline, type PipelineResult } from './pipeline';
import { writeBack } from './writeBack';

export interface EditOptions {
  expected?: number;
  replaceAll?: boolean;
  corrector?: EditCorrector | null;
  /** The file's path, for what depends on its kind (default f.txt). */
  file?: string;
}

/** Edits `raw` as edit_file would (canonical form, pipeline, splice back) and returns the new text. */
export async function editText(raw: string, oldStr: string, newStr: string, opts: EditOptions = {}): Promise<{ text: string; result: PipelineResult }> {
  const canon = canonicalise(raw);
  const lines = new LineIndex(canon.text);
  const file = opts.file ?? 'f.txt';
  const result = await runPipeline(
    { text: canon.text, oldStr: toLf(oldStr), newStr: toLf(newStr), expected: opts.expected, replaceAll: opts.replaceAll ?? false, lines },
    { file, fileHash: 'h', corrector: opts.corrector ?? null, signal: new AbortController().signal, logger: nullLogger },
  );
  return { text: writeBack(raw, canon, lines, result.splices, result.needle, file), result };
}

/** A corrector answering from fixed strings; records what it was asked. */
export function fakeCorrector(answers: { old?: string | null; new?: string | null; escaping?: string | null }): EditCorrector & { asked: string[] } {
  const asked: string[] = [];
  const reply = (kind: string, value: string | null | undefined, stats: { calls: number }) => {
    asked.push(kind);
    stats.calls++;
    return Promise.resolve(value ?? null);
  };
  return {
    asked,
    correctOldString: (a) => reply('old', answers.old, a.stats),
    adjustNewString: (a) => reply('new', answers.new, a.stats),
    correctEscaping: (a) => reply('escaping', answers.escaping, a.stats),
  };
}
