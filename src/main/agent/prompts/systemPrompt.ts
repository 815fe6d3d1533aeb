// The agent's standing instructions: how to use the tools safely, where it works, and the
// project's own AGENTS.md (read fresh for every request, so edits to it apply at once).
import { readInside } from '../../services/files/safeOpen';
import path from 'node:path';

/** AGENTS.md beyond this is cut: it shares the window with the work itself. */
const AGENTS_MD_MAX_CHARS = 20_000;

const RULES = `You are Loupe, a coding agent working in the user's project. Every change you make is recorded, shown to the user as a diff and can be rolled back.

How to work:
- Look before you act: use list_files, grep and code_search to find code, and read_file to see it.
- Read a file with read_file before editing or overwriting it; if it changed since, read it again.
- edit_file: old_str must be copied exactly from the file and be the smallest snippet that is unique in it (a few lines at most). Never include the line-number prefixes ("    12→") that read_file shows. Prefer several small edits to one large one.
- write_file only for new files or full rewrites.
- Run commands with bash (tests, builds, git). Some commands need the user's approval; if one is denied, do not try to get around it: choose another approach or explain what you need.
- After changing code, run the relevant tests when the project has them.
- Paths are relative to the workspace root.
- When the work is done, answer briefly: what you changed and how you checked it.`;

export async function readAgentsMd(root: string): Promise<string | null> {
  try {
    // A FIFO or a link out of the folder named AGENTS.md is skipped, not waited on or followed.
    const read = await readInside(root, path.join(root, 'AGENTS.md'), { maxBytes: 16 * 1024 * 1024 });
    if (!read) return null;
    const text = read.buf.toString('utf8');
    return text.length > AGENTS_MD_MAX_CHARS ? `${text.slice(0, AGENTS_MD_MAX_CHARS)}\n… (AGENTS.md cut at ${AGENTS_MD_MAX_CHARS} characters)` : text;
  } catch {
    return null;
  }
}

export async function buildSystemPrompt(root: string, opts: { now?: Date } = {}): Promise<string> {
  const parts = [RULES, `Workspace root: ${root}\nToday: ${(opts.now ?? new Date()).toISOString().slice(0, 10)}`];
  const agents = await readAgentsMd(root);
  if (agents?.trim()) parts.push(`Project instructions from AGENTS.md (follow them):\n\n${agents.trim()}`);
  return parts.join('\n\n');
}
