import { describe, expect, it } from 'vitest';
import { advertised, commandIn, listCommands, type AcpCommand, type SlashServices } from './commands';

const cmd = (name: string, hint?: string): AcpCommand => ({ name, description: `does ${name}`, ...(hint ? { hint } : {}), run: async () => ({ reply: name }) });

describe('slash commands', () => {
  it('list every source for the folder, the first of a name winning, as ACP advertises them', async () => {
    const seen: string[] = [];
    const list = await listCommands([() => [cmd('undo'), cmd('review', 'what to look at')], (root) => (seen.push(root), [cmd('undo'), cmd('deploy')])], '/w', {} as SlashServices);
    expect(list.map((c) => c.description)).toEqual(['does undo', 'does review', 'does deploy']);
    expect(seen).toEqual(['/w']);
    expect(advertised(list)).toEqual([
      { name: 'undo', description: 'does undo' },
      { name: 'review', description: 'does review', input: { hint: 'what to look at' } },
      { name: 'deploy', description: 'does deploy' },
    ]);
  });

  it('run only for a text that starts with a known name; anything else is a message', () => {
    const list = [cmd('undo'), cmd('execute-plan')];
    expect(commandIn('/undo', list)).toMatchObject({ command: { name: 'undo' }, input: '' });
    expect(commandIn('  /execute-plan   keep it small\nand tidy', list)).toMatchObject({ command: { name: 'execute-plan' }, input: 'keep it small\nand tidy' });
    for (const text of ['/usr/bin is here', 'undo', '/undone', 'please /undo', '/']) expect(commandIn(text, list), text).toBeNull();
  });
});
