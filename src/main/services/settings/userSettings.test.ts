import { writeFile, utimes } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/tmp';
import { PermissionEngine } from '../permissions/ruleEngine';
import { UserSettings } from './userSettings';

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
});
