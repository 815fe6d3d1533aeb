// What plan mode refuses, in words a model acts on (docs/architecture.md, "Plan mode"). The gate
// applies it: before a tool runs (by the facts it states of itself, so any tool that says it
// writes is refused without this file knowing its name) and when a command is asked about.
import type { PermissionKind, PermissionMode } from './types';

/** What an action says of itself: its name, its effect and the permission it asks for. */
export interface ActionFacts {
  name: string;
  effect: 'read' | 'write' | 'execute';
  /** The permission kind it asks before acting; null: it never asks. */
  asks: PermissionKind | null;
  /** It works through child sessions, each judged by its own gate (a plan-mode request's children only read). */
  delegates?: boolean;
}

const WHAT_TO_DO =
  'Plan mode only reads: files, searches, and commands that only read (ls, cat, git log, git diff, git status, rg, grep, find). ' +
  'Do not look for another way to make this change now. Put it in your plan, and finish by answering with the plan in Markdown; the person runs it with "Execute plan".';

/** Commands are judged one by one by the gate; everything else by its effect alone. */
const judgedByCommand = (facts: ActionFacts) => facts.effect === 'execute' && (facts.asks === 'bash' || facts.asks === 'test');

/** Why this action is refused in this mode, or null when it may go on. */
export function modeRefusal(mode: PermissionMode, facts: ActionFacts): string | null {
  if (mode === 'act' || facts.effect === 'read' || judgedByCommand(facts) || facts.delegates) return null;
  const what = facts.effect === 'write' ? 'changes files' : 'runs something that may change the workspace';
  return `Refused by plan mode: ${facts.name} ${what}. ${WHAT_TO_DO}`;
}

export function planCommandRefusal(command: string, why: string): string {
  const shown = command.length > 200 ? `${command.slice(0, 199)}…` : command;
  return `Refused by plan mode: \`${shown}\` may change something (${why}). ${WHAT_TO_DO}`;
}
