// Edit pipeline steps 4–8 (docs/architecture.md) on canonical text: exact, then every composition of
// the deterministic readings and views (locate.ts), then the LLM (R2, R3) unless the request is a
// content slip the closest region already explains, then the R4 escaping check, then the splice.
// Every step locates spans in the original text and says which strategy it used.
import type { Splice } from './canonical';
import { toLf } from './canonical';
import { closestRegion, describeClosest, isNearMiss } from './closest';
import type { CorrectionStats, EditCorrector } from './corrector';
import { DoubledPunctuationError, EditNoChangeError, EditNoOccurrenceError, EditOccurrenceMismatchError, EditUnmappedError } from './errors';
import { escapeSkeleton, looksOverEscaped } from './escaping';
import { findAll } from './lines';
import { search } from './locate';
import { looksNumbered } from './strategies/lineNumberPrefix';
import { clip, type Logger } from '../../services/log/logger';
import { MIN_OVERLAP, wordOverlap } from './similarity';
import { applySplices, doubledMarkAt } from './splice';
import { exact } from './strategies/exact';
import { Unmapped, countAccepted, rangesAt, type EditInput, type Located } from './types';

export interface PipelineDeps {
  file: string;
  fileHash: string;
  corrector: EditCorrector | null;
  signal: AbortSignal;
  logger: Logger;
}

export interface PipelineResult {
  text: string;
  splices: Splice[];
  strategy: string;
  /** The text the strategy found (see Located.needle). */
  needle: string;
  corrected?: { old_str?: string; new_str?: string };
  llmCalls: number;
}

const expectedOf = (input: EditInput, found: number) => input.expected ?? (input.replaceAll ? found : 1);

type Mismatch = (lines: number[], by: string[]) => Error;

export async function runPipeline(input: EditInput, deps: PipelineDeps): Promise<PipelineResult> {
  const stats: CorrectionStats = { calls: 0 };
  const mismatch: Mismatch = (lines, by) => new EditOccurrenceMismatchError(deps.file, lines, expectedOf(input, lines.length), by);

  const first = exact.locate(input);
  if (first.kind === 'ambiguous') throw mismatch(first.ranges.map((r) => input.lines.lineAt(r.start)), []);
  let located = first.kind === 'found' ? first.located : null;
  if (!located) {
    const found = search(input);
    // An ambiguous reading means the text is there more than once: more context, not a model, fixes that.
    if (found.kind === 'ambiguous') throw mismatch(found.lines, found.by);
    if (found.kind === 'found') located = found.located;
    else {
      const closest = closestRegion(input);
      const refuse = () => new EditNoOccurrenceError(deps.file, found.tried, closest ? describeClosest(closest, input.text, deps.file) : nearHint(input));
      // Text copied with its line numbers was copied, not remembered: a model has nothing to add.
      if (!deps.corrector || isNearMiss(closest) || looksNumbered(input.oldStr)) throw refuse();
      located = await correctWithLlm(input, deps, deps.corrector, stats, mismatch);
      if (!located) throw refuse();
    }
  }

  let newStr = located.newStr;
  // What the reading cannot carry is refused before any model is asked about its escaping.
  let replacements = carried(input, located, newStr, deps.file);
  if (deps.corrector) {
    const escaped = await correctEscaping(input, located, newStr, deps, deps.corrector, stats);
    if (escaped !== newStr) replacements = carried(input, located, (newStr = escaped), deps.file);
  }
  const splices = located.ranges.map((r, i) => ({ ...r, replacement: replacements[i] }));
  for (const s of splices) {
    const at = doubledMarkAt(input.text, s);
    if (at !== -1) throw new DoubledPunctuationError(deps.file, input.lines.lineAt(at), input.text[at]);
  }
  const text = applySplices(input.text, splices);
  if (text === input.text) {
    const how = located.strategy === 'exact' ? '' : ` (read with ${located.strategy})`;
    throw new EditNoChangeError(deps.file, `new_str${how} is what the file already holds at line ${input.lines.lineAt(splices[0].start)}`);
  }

  const corrected: PipelineResult['corrected'] = {};
  if (located.correctedOld !== undefined && located.correctedOld !== input.oldStr) corrected.old_str = located.correctedOld;
  if (newStr !== input.newStr) corrected.new_str = newStr;
  deps.logger.info('edit.located', { file: deps.file, strategy: located.strategy, occurrences: splices.length, llm_calls: stats.calls });
  return {
    text,
    splices,
    strategy: located.strategy,
    needle: located.needle,
    ...(Object.keys(corrected).length ? { corrected } : {}),
    llmCalls: stats.calls,
  };
}

/** new_str through the reading that found old_str, once per place; a line it cannot carry refuses the edit. */
function carried(input: EditInput, located: Located, newStr: string, file: string): string[] {
  const out = located.render(newStr);
  if (!(out instanceof Unmapped)) return out;
  const { start, end } = located.ranges[0];
  const first = input.lines.lineAt(start);
  const last = input.lines.lineAt(Math.max(start, end - 1));
  const to = input.text.indexOf('\n', input.lines.lineStart(last));
  const fileLines = input.text.slice(input.lines.lineStart(first), to === -1 ? input.text.length : to).split('\n');
  throw new EditUnmappedError(file, located.strategy, first, fileLines, out);
}

/** R2 then R3. Any failure returns null, so the caller reports the original error. */
async function correctWithLlm(
  input: EditInput,
  deps: PipelineDeps,
  corrector: EditCorrector,
  stats: CorrectionStats,
  mismatch: Mismatch,
): Promise<Located | null> {
  const common = { file: deps.file, fileHash: deps.fileHash, signal: deps.signal, stats };
  const reject = (step: string, why: string) => {
    deps.logger.info('edit.correction.rejected', { file: deps.file, step, why });
    return null;
  };
  const answer = await corrector.correctOldString({ ...common, fileContent: input.text, oldStr: input.oldStr });
  if (!answer || !answer.trim()) return reject('R2', 'no snippet');
  const snippet = toLf(answer);
  if (snippet === input.oldStr) return reject('R2', 'the snippet is old_str itself');
  if (wordOverlap(input.oldStr, snippet) < MIN_OVERLAP) return reject('R2', `the snippet is not about the same code: ${clip(snippet, 120)}`);
  const ranges = rangesAt(findAll(input.text, snippet), snippet.length);
  if (ranges.length === 0) return reject('R2', 'the snippet is not in the file');
  // expected_replacements is checked against the corrected old_str.
  if (!countAccepted(ranges.length, input)) throw mismatch(ranges.map((r) => input.lines.lineAt(r.start)), ['llm']);
  deps.logger.info('edit.correction.accepted', { file: deps.file, step: 'R2', occurrences: ranges.length });

  // R3: only because old_str was corrected and differs; a deletion stays a deletion.
  let newStr = input.newStr;
  if (newStr !== '') {
    const adjusted = await corrector.adjustNewString({ ...common, originalOld: input.oldStr, correctedOld: snippet, newStr });
    if (!adjusted || !adjusted.trim()) return reject('R3', 'no adjusted new_str');
    if (wordOverlap(input.newStr, adjusted) < MIN_OVERLAP) return reject('R3', `the adjusted new_str changes the intent: ${clip(adjusted, 120)}`);
    newStr = toLf(adjusted);
    deps.logger.info('edit.correction.accepted', { file: deps.file, step: 'R3' });
  }
  return { strategy: 'llm', ranges, newStr, correctedOld: snippet, needle: snippet, render: (n) => ranges.map(() => n) };
}

/** R4: only when new_str looks over-escaped and neither the replaced text nor the file's kind explains its escapes. */
async function correctEscaping(input: EditInput, located: Located, newStr: string, deps: PipelineDeps, corrector: EditCorrector, stats: CorrectionStats): Promise<string> {
  const replaced = input.text.slice(located.ranges[0].start, located.ranges[0].end);
  if (!looksOverEscaped(newStr, replaced, { path: deps.file, fileText: input.text })) return newStr;
  const answer = await corrector.correctEscaping({ file: deps.file, fileHash: deps.fileHash, signal: deps.signal, stats, newStr, replaced });
  const reject = (why: string) => {
    deps.logger.info('edit.correction.rejected', { file: deps.file, step: 'R4', why });
    return newStr;
  };
  if (!answer || !answer.trim() || answer === newStr) return reject('no correction');
  // Only escaping and whitespace may change; anything else is the model rewriting the code.
  if (escapeSkeleton(answer) !== escapeSkeleton(newStr)) return reject(`the answer changes more than escaping: ${clip(answer, 120)}`);
  deps.logger.info('edit.correction.accepted', { file: deps.file, step: 'R4' });
  return toLf(answer);
}

/** Where old_str's first line appears, as a pointer for the model's next try. */
function nearHint(input: EditInput): string | undefined {
  const firstLine = input.oldStr.split('\n').find((l) => l.trim().length >= 4)?.trim();
  if (!firstLine) return undefined;
  const at = input.text.indexOf(firstLine);
  if (at === -1) return undefined;
  return `Its line "${clip(firstLine, 80)}" appears at line ${input.lines.lineAt(at)}; compare the lines around it.`;
}
