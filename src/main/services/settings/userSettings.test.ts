import { writeFile, utimes } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { PermissionEngine } from '../permissions/ruleEngine';
import { describeProblem } from '../config/validate';
import { UserSettings } from './userSettings';

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await tempDir()));
afterEach(() => cleanup());

describe('UserSettings', () => {
  it('feeds user permission rules to the engine, below nothing but deny precedence', async () => {
    const settings = new UserSettings(dir);
    const engine = new PermissionEngine({ root: dir, project: { load: async () => ({ rules: [], problems: [] }) } as never, userRules: settings.permissions });
    expect((await engine.decide({ kind: 'bash', command: 'make build', cwd: dir })).action).toBe('ask');
    await writeFile(settings.file, JSON.stringify({ permissions: [{ kind: 'bash', pattern: 'make *', action: 'allow' }] }));
    const d = await engine.decide({ kind: 'bash', command: 'make build', cwd: dir });
    expect(d.action).toBe('allow');
    expect(JSON.stringify(d)).toContain('user settings');
  });

  it('reads the worktrees folder and setup lists; a relative folder or a path with .. is a problem, not a setting', async () => {
    const settings = new UserSettings(dir);
    expect(settings.worktreesFolder()).toBeUndefined();
    expect(settings.worktreeSetup()).toEqual({ copy: [], link: [] });
    expect(settings.worktreeSpare()).toBe(true);
    await writeFile(settings.file, JSON.stringify({ worktrees: { folder: '/work/trees', copy: ['.env'], link: ['node_modules'], spare: false } }));
    expect(settings.worktreesFolder()).toBe('/work/trees');
    expect(settings.worktreeSetup()).toEqual({ copy: ['.env'], link: ['node_modules'] });
    expect(settings.worktreeSpare()).toBe(false);
    await writeFile(settings.file, JSON.stringify({ worktrees: { folder: 'trees', link: ['../x'] } }));
    const later = new Date(Date.now() + 5000);
    await utimes(settings.file, later, later);
    expect(settings.worktreesFolder()).toBeUndefined();
    expect(settings.worktreeSetup()).toEqual({ copy: [], link: [] });
    expect(settings.problem).toMatch(/worktrees/);
  });

  it('ignores a malformed file and says why', async () => {
    const settings = new UserSettings(dir);
    await writeFile(settings.file, '{ "permissions": [{ "kind": "bash" ');
    expect(settings.permissions()).toEqual([]);
    expect(settings.problem).toContain('settings.json');
    await writeFile(settings.file, JSON.stringify({ permissions: [{ kind: 'nope', pattern: 'x', action: 'allow' }] }));
    const later = new Date(Date.now() + 5000);
    await utimes(settings.file, later, later);
    expect(settings.permissions()).toEqual([]);
    expect(settings.problem).toContain('permissions[0].kind');
  });

  it('a bad or unknown key is said once with line:column and ignored; every other key applies', async () => {
    const said: string[] = [];
    const settings = new UserSettings(dir, { report: (p) => said.push(describeProblem(p)) });
    const text = `{
  "theme": "dark",
  "permissions": [{ "kind": "bash", "pattern": "make *", "action": "allow" }, { "kind": "bash", "pattern": "" , "action": "deny" }],
  "llm": { "base_url": "localhost:11434", "model": "qwen", "context_tokens": -5, "temperature": 0.2 }
}`;
    await writeFile(settings.file, text);
    expect(settings.permissions()).toEqual([{ kind: 'bash', pattern: 'make *', action: 'allow' }]);
    expect(settings.llm()).toEqual({ model: 'qwen' });
    settings.permissions();
    const file = settings.file;
    const col = (line: number, needle: string) => text.split('\n')[line - 1].indexOf(needle) + 1;
    expect(said).toEqual([
      expect.stringMatching(new RegExp(`^${esc(file)}:2:3: theme: unknown key "theme", ignored`)),
      expect.stringMatching(new RegExp(`^${esc(file)}:3:${col(3, '"pattern": ""')}: permissions\\[1\\]\\.pattern: .*ignored`)),
      expect.stringMatching(new RegExp(`^${esc(file)}:4:${col(4, '"base_url"')}: llm\\.base_url: must start with http`)),
      expect.stringMatching(new RegExp(`^${esc(file)}:4:${col(4, '"context_tokens"')}: llm\\.context_tokens: `)),
      expect.stringMatching(new RegExp(`^${esc(file)}:4:${col(4, '"temperature"')}: llm\\.temperature: unknown key`)),
    ]);
  });

  it("the person's own MCP servers, and which repository servers they approved and disabled per folder, kept with every other key", async () => {
    const said: string[] = [];
    const settings = new UserSettings(dir, { report: (p) => said.push(describeProblem(p)) });
    const text = `{
  "theme": "dark",
  "mcpServers": {
    "fs": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "sandbox": false },
    "web": { "url": "ftp://nope" }
  }
}`;
    await writeFile(settings.file, text);
    expect(settings.mcpServers()).toEqual([{ name: 'fs', source: 'user', file: settings.file, entry: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], sandbox: false } }]);
    expect(said).toEqual([expect.stringContaining(':2:3: theme: unknown key'), expect.stringMatching(new RegExp(`^${esc(settings.file)}:5:\\d+: mcpServers\\.web\\.url: must start with http`))]);

    await settings.approveMcpServer('/w/a', 'marker', 'a'.repeat(64));
    await settings.setMcpDisabled('/w/a', 'fs', true);
    expect(settings.mcpApproval('/w/a', 'marker')).toBe('a'.repeat(64));
    expect(settings.mcpApproval('/w/b', 'marker')).toBeNull();
    expect(settings.mcpDisabled('/w/a')).toEqual(['fs']);
    await settings.setMcpDisabled('/w/a', 'fs', false);
    expect(settings.mcpDisabled('/w/a')).toEqual([]);
    expect(settings.mcpServers().map((s) => s.name)).toEqual(['fs']);
  });
});
