import { describe, expect, it } from 'vitest';
import type { ChatEvent, SystemPromptView, WorkspaceInfo } from '../../shared/contract';
import { connectedStore } from './fakeHost.testkit';

const ws: WorkspaceInfo = { root: '/w/proj', name: 'proj', isGitRepo: true };
const tick = () => new Promise((r) => setTimeout(r, 0));
const view = (text: string, paths: string[]): SystemPromptView => ({
  text,
  files: paths.map((path) => ({ path, kind: 'AGENTS.md', applies: 'always', chars: 10, total_chars: 10 })),
  skipped: [],
});

describe('the system prompt in the store', () => {
  it('loads the preview for the open session, follows what a request sent, and re-reads an edited instruction file only before anything was sent', async () => {
    let served = view('preview', ['AGENTS.md']);
    const asked: unknown[] = [];
    const { store, emit } = await connectedStore(ws, {
      'chat.systemPrompt': (p) => {
        asked.push(p);
        return { ...served, sent: false };
      },
      'chat.newSession': () => ({ id: 's1', title: 'New session', created_at: '', updated_at: '', requests: 0 }),
    });
    expect(store.getState().systemPrompt).toMatchObject({ text: 'preview', sent: false });

    // A new instruction file appears: the preview follows it; an unrelated file does not ask again.
    served = view('preview 2', ['AGENTS.md', 'CLAUDE.md']);
    emit('file.changed', { paths: ['src/a.ts'] });
    await tick();
    expect(store.getState().systemPrompt?.text).toBe('preview');
    emit('file.changed', { paths: ['CLAUDE.md'] });
    await tick();
    expect(store.getState().systemPrompt?.files.map((f) => f.path)).toEqual(['AGENTS.md', 'CLAUDE.md']);

    // A session of its own: asked for that session.
    await store.getState().newChatSession();
    await tick();
    expect(asked.at(-1)).toEqual({ session_id: 's1' });

    // What was sent wins, and an edit on disk no longer replaces it.
    const sent: ChatEvent = { type: 'system_prompt', ...view('as sent', ['AGENTS.md', 'pkg/AGENTS.md']), correlation_id: 'r', t: 1 };
    emit('chat.event', { session_id: 'other', event: { ...sent, text: 'not this session' } });
    expect(store.getState().systemPrompt?.text).not.toBe('not this session');
    emit('chat.event', { session_id: 's1', event: sent });
    expect(store.getState().systemPrompt).toMatchObject({ text: 'as sent', sent: true });
    const before = asked.length;
    emit('file.changed', { paths: ['AGENTS.md'] });
    await tick();
    expect(asked.length).toBe(before);
    expect(store.getState().systemPrompt?.text).toBe('as sent');
  });
});
