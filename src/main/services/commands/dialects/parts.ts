// What every dialect expands a command into: text, shell lines whose output takes their place
// (run by the host through the permission gate and the sandbox, never here), and files whose
// content is put in or attached (read by the host through the read rules). Shell lines are found
// in the file's own text before any argument is put in, so an argument can never become a line
// that runs.

export type Part =
  | { kind: 'text'; text: string }
  /** `style`: how its output is put in: as printed, or Gemini's way (a failure adds its exit status). */
  | { kind: 'shell'; command: string; style: 'raw' | 'gemini' }
  /** A file whose content goes in its place (Gemini's `@{path}`). */
  | { kind: 'file'; path: string };

export interface Expansion {
  parts: Part[];
  /** Files the message attaches, when they exist (Claude Code's and OpenCode's `@path`). */
  attach: string[];
}

export interface ExpandInput {
  /** What followed the name, as typed. */
  args: string;
  /** Values given for named inputs. */
  inputs: Record<string, string>;
  /** The whole line typed (`/name args`): Gemini appends it when its prompt has no `{{args}}`. */
  typed: string;
  /** The workspace root (VS Code's `${workspaceFolder}`). */
  root: string;
  sessionId: string;
  /** A skill invoked as a command: its folder (`${CLAUDE_SKILL_DIR}`). */
  skillDir?: string;
}

/** Claude Code's and OpenCode's shell lines: `` !`cmd` `` and, in Claude Code, a fenced block opened with ```! . */
export function backtickShell(template: string, fenced: boolean): { kind: 'text' | 'shell'; text: string }[] {
  const out: { kind: 'text' | 'shell'; text: string }[] = [];
  const re = fenced ? /^```!\s*\n([\s\S]*?)\n```\s*$|!`([^`\n]+)`/gm : /!`([^`\n]+)`/g;
  let at = 0;
  for (const m of template.matchAll(re)) {
    if (m.index > at) out.push({ kind: 'text', text: template.slice(at, m.index) });
    out.push({ kind: 'shell', text: (fenced ? (m[1] ?? m[2]) : m[1]).trim() });
    at = m.index + m[0].length;
  }
  if (at < template.length) out.push({ kind: 'text', text: template.slice(at) });
  return out;
}

/**
 * `@path` words that may name a file: at the start or after a space, up to the next space, a
 * trailing sentence mark dropped. Emails and decorators in code stay text unless such a file exists.
 */
export function atPaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@([^\s`'"<>()[\]{}]+)/g)) {
    const p = m[1].replace(/[.,;:!?]+$/, '');
    if (p && !out.includes(p)) out.push(p);
  }
  return out;
}

/** Merges neighbouring text parts. */
export function joined(parts: Part[]): Part[] {
  const out: Part[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (p.kind === 'text' && last?.kind === 'text') out[out.length - 1] = { kind: 'text', text: last.text + p.text };
    else if (p.kind !== 'text' || p.text) out.push(p);
  }
  return out;
}
