// What the agent is told (docs/architecture.md, "What the agent is told"): how to work, the
// tools as the registry describes them, the environment as it is, small adjustments for the
// model's family, and the project's instruction files for the places the agent works in. Built
// for every turn, so an edited instruction file, or a folder first touched, applies at once.
import type { SystemPromptView } from '../../../shared/contract';
import { findInstructions, type CachedText } from '../../services/instructions/instructionFiles';
import type { ChatMessage } from '../llm/types';
import type { ToolRegistry } from '../tools/registry';
import { gatherEnvironment, type EnvironmentFacts, type SandboxFacts } from './environment';
import { INSTRUCTIONS_BUDGET, instructionsText } from './instructionsText';
import { adjustmentText, adjustmentsFor, type ModelInfo } from './modelFamily';
import { exampleCall, toolList, toolsTaking } from './toolList';
import { SKILLS_BUDGET, skillsText, type SkillBrief } from './skillsText';
import type { AgentTypeView } from '../subagents/types';

/** A type's description in the list: long ones (Claude's carry examples) are cut. */
const AGENT_DESCRIPTION_CHARS = 600;

/** The agent types, for a session offered a tool that starts them. */
export function agentTypesText(types: AgentTypeView[]): string {
  if (!types.length) return '';
  const one = (t: AgentTypeView) => {
    const d = t.description.replace(/\s+/g, ' ').trim();
    return `- \`${t.name}\`: ${t.read_only ? '[read-only] ' : ''}${d.length > AGENT_DESCRIPTION_CHARS ? `${d.slice(0, AGENT_DESCRIPTION_CHARS - 1)}…` : d}`;
  };
  return ['# Agent types', 'The subagents you can start (agent_type). Each works alone on the prompt you give it, with its own context and at most your tools:', ...types.map(one)].join('\n');
}

export type { EnvironmentFacts, ModelInfo, SandboxFacts };

// No tool is named here: tools are named only by the generated list, so the prompt never
// mentions one that does not exist.
const RULES = `You are Loupe, a coding agent working in the person's project. Every change you make to a file is recorded, shown to them as a diff and can be rolled back.

# How to work
- Look before you act: find the code with the search tools and read it before changing it. If a file changed since you read it, read it again.
- Change only what the task needs, in small targeted edits; write a file whole only when it is new or rewritten.
- After changing code, run the relevant tests when the project has them.
- A call the person or a rule denies (PERMISSION_DENIED) stays denied: do not try to get around it; choose another approach or say what you need.
- Paths are relative to the workspace root.
- When the work is done, answer briefly: what you changed and how you checked it.`;

export interface PromptSources {
  /** Realpath of the workspace. */
  root: string;
  registry: ToolRegistry;
  /** The person's config folder, whose AGENTS.md applies to every project; null: none. */
  personalDir?: string | null;
  /** Whether commands run sandboxed here; absent: unknown, and the prompt says nothing of it. */
  sandbox?: () => Promise<SandboxFacts>;
  /** The read rules, once per turn: why they keep a workspace file from the agent, null when they let it read. */
  readRules?: () => Promise<(rel: string) => string | null>;
  now?: () => Date;
  /** Characters of instruction text at most. */
  instructionsBudget?: number;
  /** The skills in reach, looked for once per request; absent: none. */
  skills?: () => Promise<SkillBrief[]>;
  /** Characters the skills list takes at most. */
  skillsBudget?: number;
  /** A subagent's part: who started it for what, and its definition's instructions (after the rules). */
  role?: string;
  /** The agent types this session may start; listed only while a tool that starts them is offered. */
  agentTypes?: () => Promise<AgentTypeView[]>;
}

export interface SystemPromptSource {
  /** Facts that hold for a whole request (git status costs a process): gathered once per request. */
  environment(signal?: AbortSignal): Promise<EnvironmentFacts>;
  /** The prompt for one turn: instruction files read now, for the paths the conversation worked in. */
  build(env: EnvironmentFacts, turn: { messages: readonly ChatMessage[]; model?: ModelInfo }): Promise<SystemPromptView>;
}

/** The workspace paths the conversation's tool calls worked in, by each tool's `paths` fact. */
export function touchedPaths(messages: readonly ChatMessage[], registry: ToolRegistry): string[] {
  const out = new Set<string>();
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const c of m.tool_calls ?? []) {
      let args: unknown;
      try {
        args = JSON.parse(c.function.arguments || '{}');
      } catch {
        continue;
      }
      for (const p of registry.workPaths(c.function.name, args)) out.add(p);
    }
  }
  return [...out];
}

/** What the prompt says of the registry: the same for every turn, so worked out once (JSON Schemas cost). */
interface ToolFacts {
  list: string;
  /** Tools that run commands (they ask for `bash` or `test`). */
  commands: string[];
  /** Tools that take a `sandbox` argument. */
  sandboxable: string[];
  example: { name: string; args: string } | null;
}

function toolFacts(registry: ToolRegistry): ToolFacts {
  return {
    list: toolList(registry),
    commands: registry
      .list()
      .filter((t) => t.permission === 'bash' || t.permission === 'test')
      .map((t) => t.name),
    sandboxable: toolsTaking(registry, 'sandbox'),
    example: exampleCall(registry),
  };
}

function sandboxText(facts: SandboxFacts, tools: ToolFacts): string {
  const commands = tools.commands.map((n) => `\`${n}\``);
  if (!commands.length) return '';
  const which = commands.join(' and ');
  if (!facts.status.active) return `- Sandbox: none here (${facts.status.reason ?? 'off'}). Commands from ${which} run only when a rule allows them or the person approves.`;
  const net = facts.networkAllowed.length ? `no network except for commands matching ${facts.networkAllowed.map((p) => `"${p}"`).join(', ')}` : 'no network';
  const retry = tools.sandboxable.map((n) => `\`${n}\``);
  return [
    `- Sandbox: commands from ${which} run inside an OS sandbox (${facts.status.kind}): ${net}; writes only inside the workspace and $TMPDIR; .git/config, .git/hooks, .git/info and .loupe read-only; credentials hidden.`,
    '- A command that fails with SANDBOX_BLOCKED was stopped by the sandbox. Do not work around it (another command, a copy, an encoding to reach the same end). ' +
      'Tell the person what it needs: a "network" rule for that command in .loupe/config.json, or running it outside the sandbox' +
      (retry.length ? `, which you may ask for by calling ${retry.join(' or ')} again with sandbox: false (the person is asked to approve).` : '.'),
  ].join('\n');
}

function environmentText(env: EnvironmentFacts, tools: ToolFacts): string {
  const lines = [
    '# Environment',
    `- OS: ${env.os}; commands run in ${env.shell}`,
    `- Workspace root: ${env.root}`,
    `- Git: ${env.git}`,
    `- Today: ${env.today}`,
    env.sandbox ? sandboxText(env.sandbox, tools) : '',
  ];
  return lines.filter(Boolean).join('\n');
}

export function systemPromptSource(s: PromptSources): SystemPromptSource {
  // Instruction texts by path, reused while a file is unchanged: a turn then costs an lstat a file.
  const cache = new Map<string, CachedText>();
  let tools: ToolFacts | undefined;
  return {
    environment: async (signal) => {
      const [env, skills] = await Promise.all([gatherEnvironment({ root: s.root, now: s.now?.(), sandbox: s.sandbox, signal }), s.skills?.().catch(() => [])]);
      return skills ? { ...env, skills } : env;
    },
    async build(env, turn) {
      const adjustments = adjustmentsFor(turn.model);
      const found = await findInstructions({ root: s.root, personalDir: s.personalDir ?? null, touched: touchedPaths(turn.messages, s.registry), readRules: s.readRules, cache });
      const instructions = instructionsText(found, s.instructionsBudget ?? INSTRUCTIONS_BUDGET);
      tools ??= toolFacts(s.registry);
      const model = adjustments.length ? `# For this model\n${adjustments.map((a) => adjustmentText(a, tools!.example)).join('\n')}` : '';
      // Only where a tool loads them: the list would otherwise promise what cannot be done.
      const skillTool = s.registry.get('skill') ? 'skill' : null;
      const skills = skillTool && env.skills ? skillsText(env.skills, skillTool, s.skillsBudget ?? SKILLS_BUDGET).text : '';
      const agents = s.agentTypes && s.registry.list().some((t) => t.delegates) ? agentTypesText(await s.agentTypes()) : '';
      // Most stable first, for providers' prompt caches: the environment (git status, date) changes most often.
      const text = [RULES, s.role ?? '', tools.list, skills, agents, model, instructions.text, environmentText(env, tools)].filter(Boolean).join('\n\n');
      return { text, files: instructions.files, skipped: instructions.skipped };
    },
  };
}

/** The prompt once, outside a request (a test, the settings before any request). */
export async function buildSystemPrompt(s: PromptSources, turn: { messages?: readonly ChatMessage[]; model?: ModelInfo } = {}): Promise<SystemPromptView> {
  const source = systemPromptSource(s);
  return source.build(await source.environment(), { messages: turn.messages ?? [], model: turn.model });
}
