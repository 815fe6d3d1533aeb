// Claude Code's names and input shapes for the tools that have a counterpart there, so a hook
// written for Claude Code reads a call as it would there (docs/architecture.md, "Hooks"). Each
// tool states its own shape as a fact (`claudeCode`); these helpers keep paths the way each side
// wants them: absolute for Claude Code, workspace-relative for Loupe's tools.
import path from 'node:path';

/** A workspace path as Claude Code gives it to hooks: absolute. */
export const absolute = (root: string, p: string | undefined): string | undefined => (p === undefined ? undefined : path.resolve(root, p));

/** A path from a hook back to a Loupe argument: relative when it is inside the workspace, else as given (the tool refuses it). */
export function fromHookPath(root: string, p: unknown, was: string | undefined): string | undefined {
  if (typeof p !== 'string' || !p) return was;
  const rel = path.relative(root, path.resolve(root, p));
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : rel === '' ? '.' : p;
}

/** The keys of `o` whose values are defined. */
export const defined = (o: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** `input[key]` when it has the type of `was`, else `was`. */
export function take<T>(input: Record<string, unknown>, key: string, was: T): T {
  const v = input[key];
  if (v === undefined) return was;
  if (was === undefined) return v as T;
  return typeof v === typeof was ? (v as T) : was;
}
