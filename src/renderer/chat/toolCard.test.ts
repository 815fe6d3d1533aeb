// The tool card draws what the call says of itself (title, effect, summary), never what a
// table of tool names or a guess at argument names would say.
import fc from 'fast-check';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ToolEffect } from '../../shared/contract';
import { createAppStore, StoreProvider, type ChatItem } from '../store';
import { fakeHost } from '../store/fakeHost.testkit';
import { ToolCard } from './ToolCard';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

const store = createAppStore(fakeHost({}).client);
const render = (item: ToolItem) => renderToStaticMarkup(createElement(StoreProvider, { store, children: createElement(ToolCard, { item }) }));
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');

const item = (over: Partial<ToolItem>): ToolItem => ({
  kind: 'tool',
  id: 'c1',
  tool: 'edit_file',
  title: 'Edit file',
  effect: 'write',
  summary: 'src/a.ts',
  args: { path: 'src/a.ts' },
  argsText: '',
  status: 'done',
  output: 'Edited src/a.ts',
  ...over,
});

describe('tool card', () => {
  it('offers the diff, shows the output and prints the summary by what the call says of itself', () => {
    const toolName = fc.stringMatching(/^[a-z][a-z_]{1,15}$/);
    fc.assert(
      fc.property(toolName, fc.constantFrom<ToolEffect>('read', 'write', 'execute'), fc.string({ minLength: 1, maxLength: 30 }), fc.boolean(), (tool, effect, summary, withMod) => {
        // The arguments name something else: the card must not go looking in them.
        const html = render(item({ tool, effect, summary, title: `Title of ${tool}`, args: { path: 'elsewhere.ts', command: 'other' }, data: withMod ? { modification_id: 'mod-1' } : undefined }));
        expect(html.includes('data-testid="tool-call-modification"')).toBe(effect === 'write' && withMod);
        expect(html.includes('data-testid="tool-call-output"')).toBe(effect !== 'read');
        expect(html).toContain(`<code class="tool-summary" title="${escape(summary)}">${escape(summary)}</code>`);
        expect(html).toContain(`title="Title of ${tool}"`);
      }),
      { numRuns: 200 },
    );
  });

  it('shows no guessed summary while the arguments are still streaming', () => {
    const html = render(item({ tool: 'bash', effect: 'execute', summary: '', args: undefined, argsText: '{"command":"rm -rf bu', status: 'running', output: '' }));
    expect(html).toContain('<code class="tool-summary" title=""></code>');
  });
});

describe('tool card and the model\'s description', () => {
  it('heads a described call with the model\'s words and puts the command on the line below', () => {
    const bash = { tool: 'bash', effect: 'execute' as const, summary: 'npm test -- --run' };
    const described = render(item({ ...bash, args: { command: 'npm test -- --run', description: ' Run the tests ' } }));
    expect(described).toContain('data-testid="tool-call-description" title="Run the tests">Run the tests</span>');
    expect(described).toContain('<code class="tool-command" data-testid="tool-call-command" title="npm test -- --run">npm test -- --run</code>');
    for (const args of [{ command: 'npm test' }, { command: 'npm test', description: '  ' }, { command: 'npm test', description: 3 }]) {
      const plain = render(item({ ...bash, args }));
      expect(plain).not.toContain('tool-call-description');
      expect(plain).toContain('<code class="tool-summary" title="npm test -- --run">npm test -- --run</code>');
    }
  });
});

describe('tool card and the sandbox', () => {
  it('says sandboxed or outside from data.sandboxed, and what a SANDBOX_BLOCKED call was stopped from', () => {
    const bash = { tool: 'bash', effect: 'execute' as const, summary: 'echo x > /etc/hosts' };
    expect(render(item({ ...bash, data: { sandboxed: true } }))).toMatch(/data-testid="tool-call-sandbox" data-sandboxed="true">sandboxed</);
    expect(render(item({ ...bash, data: { sandboxed: false } }))).toMatch(/data-sandboxed="false">outside the sandbox</);
    expect(render(item({ ...bash, data: {} }))).not.toContain('tool-call-sandbox');
    const blocked = render(item({ ...bash, status: 'error', error: 'SANDBOX_BLOCKED: blocked by the sandbox', errorCode: 'SANDBOX_BLOCKED', data: { sandboxed: true, blocked: 'write to /etc/hosts' } }));
    expect(blocked).toContain('data-testid="tool-call-blocked"');
    expect(blocked).toContain('Blocked by the sandbox: write to /etc/hosts. The agent may retry it outside the sandbox');
    expect(render(item({ ...bash, status: 'error', error: 'EXIT: 1', errorCode: 'EXIT' }))).not.toContain('tool-call-blocked');
  });
});
