// What the model is told in plan mode (docs/architecture.md, "Plan mode"). Telling is a courtesy
// so it plans instead of trying: what it may do is decided by the permission layer, which refuses
// every write whatever the model makes of this text.
import type { ChatMode } from '../../../shared/contract';

export type AgentMode = ChatMode;

export const PLAN_MODE_PROMPT = [
  '# Plan mode',
  'This request is in plan mode. Investigate with tools that read (files, searches, commands that only read such as ls, git log, rg); anything that would change the workspace is refused.',
  'Then answer with the plan, in Markdown: the goal, the files to change and how, the commands to run, and how to check the result. The answer is saved as the plan, and the person runs it with "Execute plan".',
].join('\n');
