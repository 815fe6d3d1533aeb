// The three correction questions (edit pipeline step 7). Each asks for one JSON field and says
// plainly that an empty answer is better than a guess.

export const SYSTEM = 'You are a precise code-editing assistant inside a tool. You answer with one JSON object and nothing else.';

/** Fences long enough that the quoted text cannot close them. */
export function fenced(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}\n${text}\n${fence}`;
}

export function oldStringPrompt(fileContent: string, oldStr: string): string {
  return [
    'A tool must find an exact literal, unique match for a text snippet in a file. The snippet did not match,',
    'most likely because it was over-escaped or its whitespace, indentation, quotes or line-number prefixes differ from the file.',
    '',
    'Problematic target snippet:',
    fenced(oldStr),
    '',
    'File content:',
    fenced(fileContent),
    '',
    'Task: find the one segment of the file that the snippet was meant to match and return it exactly as it appears in the',
    'file: an exact literal, unique match, copied character for character (escaping, whitespace and indentation included).',
    'Only fix escaping and formatting differences; never return text whose meaning differs from the snippet.',
    'If the intended text is not in the file, or you are not sure which segment is meant, return an empty string.',
    '',
    'Answer with JSON only: {"corrected_target_snippet": "..."}',
  ].join('\n');
}

export function newStringPrompt(originalOld: string, correctedOld: string, originalNew: string): string {
  return [
    'A text replacement was planned, but the text to replace (original_old_string) differed slightly from the file.',
    'It has been corrected to corrected_old_string, which is exactly what is in the file and will be replaced.',
    '',
    'original_old_string:',
    fenced(originalOld),
    '',
    'corrected_old_string:',
    fenced(correctedOld),
    '',
    'original_new_string (meant to replace original_old_string):',
    fenced(originalNew),
    '',
    'Task: return corrected_new_string: original_new_string adjusted the same way original_old_string had to be adjusted',
    '(escaping, quotes, whitespace, indentation), so it can replace corrected_old_string and keeps the intent of the change.',
    'Change nothing else. If no adjustment is needed, return original_new_string unchanged; if unsure, return an empty string.',
    '',
    'Answer with JSON only: {"corrected_new_string": "..."}',
  ].join('\n');
}

export function escapingPrompt(newStr: string, replaced: string): string {
  return [
    'A tool is about to write new_string into a file, but new_string looks over-escaped: it seems to contain escape',
    'sequences such as \\n, \\t or \\" where a real newline, tab or quote was meant (a common artefact of writing code inside JSON).',
    '',
    'Text in the file that new_string replaces:',
    fenced(replaced),
    '',
    'new_string:',
    fenced(newStr),
    '',
    'Task: return new_string with its escaping corrected, exactly the literal text that belongs in the file. Change nothing else.',
    'Keep escapes that are part of the code itself, such as \\n inside a string literal. If it is already correct, return it unchanged.',
    '',
    'Answer with JSON only: {"corrected_new_string_escaping": "..."}',
  ].join('\n');
}
