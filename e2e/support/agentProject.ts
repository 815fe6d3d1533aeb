// A git project served by the real `loupe serve`, with the scripted OpenAI-compatible server
// as its model: what every agent end-to-end test starts from.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, type Locator, type Page } from '@playwright/test';
import { startScriptedLlm, userPrompt, type RecordedRequest, type ScriptedLlm, type ScriptedReply } from '../../test/support/scriptedLlm';
import { startServe, type ServeOptions, type Served } from './serve';

export interface AgentProject {
  project: string;
  llm: ScriptedLlm;
  served: Served;
  stop(): Promise<void>;
}

/** `files` (relative path → content) committed to a fresh repository named `name`, served with `script` as the model. */
export async function startAgentProject(name: string, files: Record<string, string>, script: (req: RecordedRequest) => ScriptedReply, opts: ServeOptions = {}): Promise<AgentProject> {
  const root = await realpath(await mkdtemp(path.join(os.tmpdir(), `loupe-e2e-${name}-`)));
  const project = path.join(root, name);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(project, rel)), { recursive: true });
    await writeFile(path.join(project, rel), content);
  }
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=e@x', '-c', 'user.name=E', ...args], { cwd: project });
  git('init', '-q');
  git('add', '.');
  git('commit', '-qm', 'init');
  const llm = await startScriptedLlm(script);
  const served = await startServe(project, { OPENAI_BASE_URL: llm.baseURL, LOUPE_MODEL: 'scripted', OPENAI_API_KEY: 'sk-env' }, opts);
  return {
    project,
    llm,
    served,
    async stop() {
      await served.stop();
      await llm.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Sends a message from the chat and waits until the request is over. */
export async function sayAndWait(page: Page, text: string): Promise<void> {
  const users = page.locator('[data-testid="chat-message"][data-role="user"]');
  const before = await users.count();
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('chat-input').press('Enter');
  // Send stays visible while the agent works (it queues then): wait for the message, then for
  // the request to end, which takes Stop away.
  await expect(users).toHaveCount(before + 1);
  await expect(page.getByTestId('chat-stop')).toHaveCount(0);
}

export interface ScriptedEdit {
  path: string;
  old_str: string;
  new_str: string;
  reason: string;
}

/**
 * A model that, for a prompt holding one of `edits`' words, reads that edit's file (reads are
 * per chat session), then makes the edit, then says "Done."; any other prompt gets "Hello.".
 */
export function readThenEdit(edits: Record<string, ScriptedEdit>): (req: RecordedRequest) => ScriptedReply {
  return (req) => {
    const messages = req.body.messages ?? [];
    const last = messages[messages.length - 1];
    const edit = Object.entries(edits).find(([word]) => userPrompt(req).includes(word))?.[1];
    if (!edit) return { content: 'Hello.' };
    if (last?.role !== 'tool') return { toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ path: edit.path }) }] };
    const lastCall = [...messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0]?.function.name;
    if (lastCall === 'read_file') return { toolCalls: [{ name: 'edit_file', arguments: JSON.stringify(edit) }] };
    return { content: 'Done.' };
  };
}

/** Points at the squiggle in `editor` as a person would until Monaco's hover shows `message`. */
export async function expectHoverMessage(page: Page, editor: Locator, message: string): Promise<void> {
  // Monaco shows its hover after a delay and drops it when the editor relayouts: point again until it shows.
  await expect(async () => {
    await page.mouse.move(0, 0);
    await editor.locator('.squiggly-error').hover({ force: true });
    await expect(page.locator('.monaco-hover').filter({ hasText: message })).toBeVisible({ timeout: 3000 });
  }).toPass({ timeout: 30_000 });
}

/** A user message of the chat with its actions (Undo changes from here, Redo, Edit), by its text. */
export const userMessage = (page: Page, text: string) => page.locator('.chat-user').filter({ has: page.locator('[data-testid="chat-message"][data-role="user"]', { hasText: text }) });
/** The two screens every daily-use check runs at: a small laptop and a desktop monitor. */
export const VIEWPORTS = [
  [1024, 700],
  [1920, 1080],
] as const;
