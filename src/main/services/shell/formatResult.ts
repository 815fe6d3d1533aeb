// The text the model reads after a command: its output, then the facts it needs to decide
// what to do next, each on its own line. The person reads the same facts without the advice
// about the model's tools (`reader: 'person'`, the chat's card).
import path from 'node:path';
import type { CommandResult } from './commandRunner';

export function formatCommandResult(r: CommandResult, workspaceRoot: string, timeoutMs: number, reader: 'model' | 'person' = 'model'): string {
  const lines: string[] = [];
  if (r.binary) lines.push(`[binary output suppressed: ${r.totalBytes} bytes]`);
  else if (r.text.trim()) lines.push(r.text.replace(/\n+$/, ''));
  else lines.push('(no output)');
  lines.push('');
  if (r.timedOut) lines.push(`Timed out after ${Math.round(timeoutMs / 1000)} s: the command and every process it started were stopped.${reader === 'model' ? ' Run it with a longer timeout (max 600000 ms) or in smaller steps.' : ''}`);
  else if (r.aborted) lines.push('Cancelled: the command and every process it started were stopped.');
  else if (r.signal) lines.push(`Killed by signal ${r.signal}.`);
  else lines.push(`Exit code: ${r.exitCode}`);
  if (r.logFile) {
    const rel = path.relative(workspaceRoot, r.logFile).split(path.sep).join('/');
    const where = rel.startsWith('..') ? r.logFile : rel;
    lines.push(`Output was ${r.totalBytes} bytes, so only its start and end are shown; the full output${r.logTruncated ? ' (first 64 MB)' : ''} is in ${where}${reader === 'model' ? ': read it with read_file, or grep it' : ''}.`);
  } else if (r.truncated) {
    lines.push(`Output was ${r.totalBytes} bytes, so only its start and end are shown.`);
  }
  return lines.join('\n');
}
