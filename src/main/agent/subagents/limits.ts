// How far subagents may go (docs/architecture.md, "Subagents"): `subagents` in the person's
// settings.json and in the folder's .loupe/config.json, one schema for both. A folder's config
// arrives with a clone, so until the person trusts it its values can only lower the limits:
// a repository cannot raise what its agents may spend.
import type { z } from 'zod';
import type { SubagentLimitsSchema } from '../../services/config/loupeConfig';

export interface SubagentLimits {
  /** How deep children nest: 1 means children, and none of their own. */
  maxDepth: number;
  /** Children one session runs at once. */
  maxParallel: number;
  /** Turns of one child (its definition may ask for fewer). */
  maxTurns: number;
  /** Tokens one child (with its own children) may spend. */
  tokensPerAgent: number;
  /** Tokens all of one session's children may spend, over its life. */
  tokensPerSession: number;
}

export const DEFAULT_SUBAGENT_LIMITS: SubagentLimits = {
  maxDepth: 1,
  maxParallel: 4,
  maxTurns: 25,
  tokensPerAgent: 300_000,
  tokensPerSession: 1_500_000,
};

type Section = Partial<z.output<typeof SubagentLimitsSchema>>;

const KEYS: [keyof Section, keyof SubagentLimits][] = [
  ['max_depth', 'maxDepth'],
  ['max_parallel', 'maxParallel'],
  ['max_turns', 'maxTurns'],
  ['tokens_per_agent', 'tokensPerAgent'],
  ['tokens_per_session', 'tokensPerSession'],
];

/** The person's values over the defaults; the folder's over both when trusted, else only where lower. */
export function subagentLimits(user: Section | undefined, project: Section | undefined, projectTrusted: boolean): SubagentLimits {
  const out = { ...DEFAULT_SUBAGENT_LIMITS };
  for (const [key, field] of KEYS) {
    const mine = user?.[key];
    if (typeof mine === 'number') out[field] = mine;
    const theirs = project?.[key];
    if (typeof theirs === 'number' && (projectTrusted || theirs < out[field])) out[field] = theirs;
  }
  return out;
}
