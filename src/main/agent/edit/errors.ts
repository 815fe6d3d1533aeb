// The edit pipeline's refusals, each saying what the model should do next.
import { LoupeError } from '../../errors';
import { numberLines } from '../../services/files/lineNumbers';
import { clip } from '../../services/log/logger';

export class EditInvalidPathError extends LoupeError {
  constructor(message: string) {
    super('EDIT_INVALID_PATH', message);
  }
}

export class EditFileNotFoundError extends LoupeError {
  constructor(rel: string) {
    super('EDIT_FILE_NOT_FOUND', `${rel} does not exist. To create it, call edit_file with an empty old_str (or use write_file); otherwise check the path.`);
    this.forPerson = `${rel} does not exist; nothing was written.`;
  }
}

export class EditFileReadError extends LoupeError {
  constructor(message: string) {
    super('EDIT_FILE_READ_ERROR', message);
  }
}

export class EditNoChangeError extends LoupeError {
  constructor(rel: string, why = 'old_str and new_str are identical') {
    super(
      'EDIT_NO_CHANGE',
      `Nothing to change in ${rel}: ${why}. Do not send this call again: if the file already reads as you want, move on; ` +
        'otherwise put the text you want in new_str.',
    );
    this.forPerson = `Nothing to change in ${rel}: the new text is what the file already holds.`;
  }
}

export class AttemptToCreateExistingFileError extends LoupeError {
  constructor(rel: string) {
    super(
      'ATTEMPT_TO_CREATE_EXISTING_FILE',
      `${rel} already exists, so an empty old_str (create) is refused. Read it and give the text to replace as old_str, or use write_file to replace it whole.`,
    );
    this.forPerson = `${rel} already exists, so it was not created again; nothing was written.`;
  }
}

export class EditNoOccurrenceError extends LoupeError {
  constructor(rel: string, tried: string[], detail?: string) {
    super(
      'EDIT_NO_OCCURRENCE_FOUND',
      `old_str was not found in ${rel} (tried: ${tried.join(', ')}).` +
        (detail ? `\n${detail}` : ' Read the file again (read_file, with offset/limit near the target) and copy the text exactly, whitespace included.'),
    );
    this.forPerson = `The text to replace was not found in ${rel}; nothing was written.`;
  }
}

/**
 * old_str found by a reading (joined lines, a misaligned line) whose mapping cannot carry a line
 * of new_str: the edit is refused instead of written half corrected. Same code as a miss, since
 * old_str as written is not in the file; the message shows the file's lines to copy.
 */
export class EditUnmappedError extends LoupeError {
  constructor(rel: string, strategy: string, first: number, fileLines: string[], newLine: { at: number; line: string; why: string }) {
    const shown = fileLines.length > MAX_SHOWN ? [...fileLines.slice(0, MAX_SHOWN), '…'] : fileLines;
    const region = fileLines.length === 1 ? `line ${first}` : `lines ${first}-${first + fileLines.length - 1}`;
    super(
      'EDIT_NO_OCCURRENCE_FOUND',
      `old_str is not in ${rel} as written; read as ${strategy} it is ${region}, but new_str line ${newLine.at + 1} (${JSON.stringify(clip(newLine.line, 120))}) ` +
        `cannot be carried over the same way: ${newLine.why}. Nothing was written. Copy old_str from the file exactly, and write new_str the way the file writes its lines:\n` +
        numberLines(shown, first),
    );
    this.forPerson = `The text to replace is not in ${rel} as written (it matches ${region} only when read loosely), and the new text could not be fitted to the file's lines the same way; nothing was written.`;
  }
}

/** Lines of the matched region a refusal shows. */
const MAX_SHOWN = 20;

export class EditOccurrenceMismatchError extends LoupeError {
  /** `by`: the corrections that found the places (empty for an exact match). */
  constructor(rel: string, lines: number[], expected: number, by: string[] = []) {
    const places = [...new Set(lines)];
    const how = by.length ? ` once corrected (${[...new Set(by)].join(', ')})` : '';
    const what =
      lines.length === expected
        ? `old_str can be read more than one way at line${places.length === 1 ? '' : 's'} ${places.join(', ')} of ${rel}${how}, so which text it means is not clear. `
        : `old_str occurs ${lines.length} times in ${rel}${how}, at line${places.length === 1 ? '' : 's'} ${places.join(', ')}, but ${expected} ${expected === 1 ? 'was' : 'were'} expected. `;
    super(
      'EDIT_EXPECTED_OCCURRENCE_MISMATCH',
      what + 'Add surrounding lines to old_str so it matches only the place you mean, copied exactly, or set expected_replacements (or replace_all) to change every one.',
    );
    this.forPerson =
      lines.length === expected
        ? `The text to replace can be read more than one way at line${places.length === 1 ? '' : 's'} ${places.join(', ')} of ${rel}; nothing was written.`
        : `The text to replace occurs ${lines.length} times in ${rel} (line${places.length === 1 ? '' : 's'} ${places.join(', ')}), not ${expected}; nothing was written.`;
  }
}

export class DoubledPunctuationError extends LoupeError {
  constructor(rel: string, line: number, mark: string) {
    super(
      'INVALID_ARGUMENT',
      `The edit would leave "${mark}${mark}" at line ${line} of ${rel}: old_str stops just before a "${mark}" that new_str also ends with. ` +
        `Include the "${mark}" in old_str, or leave it out of new_str.`,
    );
    this.forPerson = `The edit would leave "${mark}${mark}" at line ${line} of ${rel}; nothing was written.`;
  }
}
