// The README's tool list is the registry's: every tool, its title, what it does to the
// workspace, the permission it asks for and the first sentence of its description. When a tool
// is added or changed, `LOUPE_WRITE_README=1 npx vitest run test/toolsReadme.test.ts` rewrites
// the list; otherwise this test fails and shows the expected one.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../src/main/agent/tools/registry';
import type { Tool } from '../src/main/agent/tools/types';

const README = path.resolve(__dirname, '../README.md');
const START = '<!-- tools: generated from the registry by test/toolsReadme.test.ts -->';
const END = '<!-- /tools -->';

const EFFECT = { read: 'reads', write: 'writes files', execute: 'runs a process' } as const;

const firstSentence = (text: string) => (text.match(/^.*?[.!?](?=\s|$)/)?.[0] ?? text).replace(/\|/g, '\\|');

function toolTable(tools: Tool[]): string {
  const rows = tools.map((t) => `| \`${t.name}\` | ${t.title} | ${t.delegates && t.effect === 'execute' ? 'runs subagents' : EFFECT[t.effect]}${t.openWorld ? ', beyond the workspace' : ''} | ${t.permission ? `\`${t.permission}\`` : '—'} | ${firstSentence(t.description)} |`);
  return [START, '| Tool | Title | Effect | Asks | What it does |', '| --- | --- | --- | --- | --- |', ...rows, END].join('\n');
}

describe('README tool list', () => {
  it('lists every registered tool with its facts, in registry order', () => {
    const readme = readFileSync(README, 'utf8');
    const expected = toolTable(createToolRegistry().list());
    const from = readme.indexOf(START);
    const to = readme.indexOf(END);
    if (process.env.LOUPE_WRITE_README === '1' && from >= 0 && to > from) {
      writeFileSync(README, readme.slice(0, from) + expected + readme.slice(to + END.length));
      return;
    }
    expect(from, `README.md has no tool list; add:\n${expected}`).toBeGreaterThanOrEqual(0);
    expect(readme.slice(from, to + END.length)).toBe(expected);
  });
});
