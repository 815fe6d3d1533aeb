import { describe, expect, it } from 'vitest';
import type { SlashCommandView } from '../../shared/contract';
import { HostRequestError } from '../host-client';
import { rankSlash } from '../chat/SlashPicker';
import { createAppStore } from './createAppStore';
import { fakeHost } from './fakeHost.testkit';

const cmd = (name: string, description = ''): SlashCommandView => ({ name, kind: 'command', source: 'repository', description, problems: [] });

describe('the / picker’s order', () => {
  it('name prefix, then name anywhere, then description; 50 at most', () => {
    const all = [cmd('preview', 'show'), cmd('review-pr'), cmd('git:commit', 'review the diff'), cmd('review'), ...Array.from({ length: 80 }, (_, i) => cmd(`x${i}`))];
    expect(rankSlash(all, 'rev').map((c) => c.name)).toEqual(['review-pr', 'review', 'preview', 'git:commit']);
    expect(rankSlash(all, 'REV').map((c) => c.name)).toEqual(['review-pr', 'review', 'preview', 'git:commit']);
    expect(rankSlash(all, '')).toHaveLength(50);
    expect(rankSlash(all, 'x')).toHaveLength(50);
  });
});

describe('sending a slash command from the composer', () => {
  const setup = () => {
    const host = fakeHost({
      'chat.newSession': () => ({ id: 's1', title: 'New session', created_at: '', updated_at: '', requests: 0 }),
      'chat.sessions': () => [],
      'chat.send': (p) => {
        const inputs = (p as { inputs?: Record<string, string> }).inputs;
        if (!inputs) throw new HostRequestError('INVALID_ARGUMENT', '/react-form needs formName', 'chat.send', { missing_inputs: [{ name: 'formName', placeholder: 'Name of the form' }], command: 'react-form' });
        return { session_id: 's1', correlation_id: 'req-1' };
      },
    });
    return { host, store: createAppStore(host.client) };
  };

  it('a command that asks for values holds the message, then sends it again with them', async () => {
    const { host, store } = setup();
    await store.getState().sendChat('/react-form');
    expect(store.getState().slashInputs).toEqual({ text: '/react-form', command: 'react-form', inputs: [{ name: 'formName', placeholder: 'Name of the form' }] });
    // Not sent: no message left in the chat, no error shown.
    expect(store.getState().chatItems).toEqual([]);
    expect(store.getState().chatRunning).toBeNull();
    await store.getState().answerSlashInputs({ formName: 'Signup' });
    expect(store.getState().slashInputs).toBeNull();
    expect(host.calls.filter((c) => c.ch === 'chat.send').map((c) => c.p)).toEqual([
      { session_id: 's1', text: '/react-form', mode: 'act' },
      { session_id: 's1', text: '/react-form', mode: 'act', inputs: { formName: 'Signup' } },
    ]);
  });

  it('/plan alone switches the mode, /clear opens a new session, and neither reaches the host as a message', async () => {
    const { host, store } = setup();
    await store.getState().sendChat('/plan');
    expect(store.getState().chatMode).toBe('plan');
    await store.getState().sendChat('/clear');
    expect(host.count('chat.newSession')).toBe(1);
    expect(host.count('chat.send')).toBe(0);
  });
});
