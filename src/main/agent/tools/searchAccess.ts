// What a search tool may show. The file or folder searched is authorized like a read (which
// asks when a rule says so); then every path in the results is held to the read rules on its
// own, so a denied file never shows up inside an allowed folder.
import { resolveInWorkspace } from '../../services/workspace/pathGuard';
import type { ToolContext } from './types';

/** Depends on the rules alone, never on what was found: it reveals nothing about the withheld files. */
export const READ_RULES_NOTE = 'Read rules deny or hold for approval some paths; those files are never searched or listed here. Ask the user if you need one.';

export interface SearchAccess {
  visible: (rel: string) => boolean;
  /** READ_RULES_NOTE when some read rule denies or asks, else null. */
  note: string | null;
}

/** `search.exclude` of the workspace's config, read through the same reader as its rules. */
export async function configuredExcludes(ctx: ToolContext): Promise<string[]> {
  return (await ctx.permissions.project()).config.search?.exclude ?? [];
}

export async function authorizeSearch(ctx: ToolContext, requested: string | undefined, tool: string, summary: string): Promise<SearchAccess> {
  // Outside the workspace is refused outright, before any rule is consulted.
  const { rel } = await resolveInWorkspace(ctx.root, requested ?? '');
  const gate = ctx.permissions;
  const auth = await gate.authorize({ query: { kind: 'read', path: rel || '.' }, tool, summary, signal: ctx.signal });
  const { actionFor, limited } = await gate.readRules();
  // A person who just approved searching this file or folder approved reading what it holds,
  // except what a rule denies.
  const approved = auth.by !== 'rule';
  const within = (p: string) => rel === '' || p === rel || p.startsWith(`${rel}/`);
  return {
    visible: (p) => {
      const action = actionFor(p);
      return action === 'allow' || (action === 'ask' && approved && within(p));
    },
    note: limited ? READ_RULES_NOTE : null,
  };
}

/** A search call in one line: the pattern, and where when not the whole workspace. */
export const searchSummary = (args: { pattern: string; path?: string }): string => (args.path ? `${args.pattern} in ${args.path}` : args.pattern);
