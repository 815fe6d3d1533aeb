// Every agent write goes through the permission engine as kind `edit` with the change already
// computed: in "ask before every edit" mode the card carries both sides and the diff, and
// nothing reaches the disk (or the modification log) unless the person allows it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalQueue, type ApprovalAnswer, type ApprovalRequest } from '../../src/main/services/permissions/approvalQueue';
import { PermissionGate } from '../../src/main/services/permissions/permissionGate';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine } from '../../src/main/services/permissions/ruleEngine';
import { harness, type Harness } from '../support/toolHarness';
import { testTrust, type TestTrust } from '../support/trust';

let h: Harness;
let user: TestTrust;
let requests: ApprovalRequest[];
let answer: ApprovalAnswer;

async function setMode(mode: 'ask' | 'review', permissions: unknown[] = []) {
  await h.write('.loupe/config.json', JSON.stringify({ edits: { mode }, permissions }));
}

beforeEach(async () => {
  h = await harness({ git: true });
  requests = [];
  answer = { answer: 'once' };
  const queue = new ApprovalQueue('wait');
  queue.setResponder(async (r) => {
    requests.push(r);
    return answer;
  });
  user = testTrust();
  const project = new ProjectConfig(h.root, user.store);
  h.ctx.permissions = new PermissionGate(new PermissionEngine({ root: h.root, project }), queue, { persist: (r) => project.addRules(r) });
  await h.write('src/a.ts', 'export const a = 1;\nexport const b = 2;\n');
  await h.call('read_file', { path: 'src/a.ts' });
});
afterEach(async () => {
  user.cleanup();
  await h.cleanup();
});

const log = async () => (await h.call('modification_log', {})).data as { modifications: unknown[] };

describe('edits.mode "ask"', () => {
  it('edit_file shows the change on a card and writes only after "allow once"', async () => {
    await setMode('ask');
    const r = await h.call('edit_file', { path: 'src/a.ts', old_str: 'const b = 2', new_str: 'const b = 3' });
    expect(r.ok).toBe(true);
    expect(requests).toHaveLength(1);
    const req = requests[0];
    expect(req).toMatchObject({ kind: 'edit', tool: 'edit_file', summary: 'edit src/a.ts', rule: null, always: [{ kind: 'edit', pattern: 'src/a.ts', action: 'allow' }] });
    expect(req.reason).toContain('edits.mode is "ask"');
    expect(req.edit).toEqual({ path: 'src/a.ts', before: 'export const a = 1;\nexport const b = 2;\n', after: 'export const a = 1;\nexport const b = 3;\n', language: 'typescript' });
    expect(req.diff).toContain('-export const b = 2;');
    expect(req.diff).toContain('+export const b = 3;');
    expect(await h.read('src/a.ts')).toBe('export const a = 1;\nexport const b = 3;\n');
  });

  it('a denied edit writes nothing, logs nothing, and the model hears the person', async () => {
    await setMode('ask');
    answer = { answer: 'deny', message: 'keep b at 2' };
    const r = await h.call('edit_file', { path: 'src/a.ts', old_str: 'const b = 2', new_str: 'const b = 3' });
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('PERMISSION_DENIED');
    expect(r.output).toContain('keep b at 2');
    expect(await h.read('src/a.ts')).toBe('export const a = 1;\nexport const b = 2;\n');
    expect((await log()).modifications).toHaveLength(0);
  });

  it('write_file, code_modify and code_rollback ask too, each with its own summary', async () => {
    await setMode('ask');
    expect((await h.call('write_file', { path: 'src/new.ts', content: 'x\n' })).ok).toBe(true);
    expect(requests[0]).toMatchObject({ tool: 'write_file', summary: 'create src/new.ts', edit: { before: null, after: 'x\n' } });
    const mod = await h.call('code_modify', { file_path: 'src/a.ts', operation: 'delete', line_range: [1, 1] });
    expect(mod.ok).toBe(true);
    expect(requests[1]).toMatchObject({ tool: 'code_modify', summary: 'edit src/a.ts', edit: { after: 'export const b = 2;\n' } });

    answer = { answer: 'deny' };
    const rb = await h.call('code_rollback', { modification_id: (mod.data as { modification_id: string }).modification_id });
    expect(rb.error?.code).toBe('PERMISSION_DENIED');
    expect(requests[2]).toMatchObject({ tool: 'code_rollback', edit: { before: 'export const b = 2;\n', after: 'export const a = 1;\nexport const b = 2;\n' } });
    expect(await h.read('src/a.ts')).toBe('export const b = 2;\n');
  });

  it('"allow always" saves an edit rule for the file, so the next edit of it does not ask', async () => {
    await setMode('ask');
    answer = { answer: 'always' };
    await h.call('edit_file', { path: 'src/a.ts', old_str: 'const b = 2', new_str: 'const b = 3' });
    expect(JSON.parse(await h.read('.loupe/config.json')).permissions).toEqual([{ kind: 'edit', pattern: 'src/a.ts', action: 'allow' }]);
    await h.call('edit_file', { path: 'src/a.ts', old_str: 'const b = 3', new_str: 'const b = 4' });
    expect(requests).toHaveLength(1);
    expect(await h.read('src/a.ts')).toContain('const b = 4');
  });

  it('Stop while the card waits leaves the file untouched', async () => {
    await setMode('ask');
    const ac = new AbortController();
    h.ctx.signal = ac.signal;
    const queue = new ApprovalQueue('wait');
    const waiting = new Promise<void>((resolve) => queue.onEvent((e) => e.type === 'requested' && resolve()));
    h.ctx.permissions = new PermissionGate(new PermissionEngine({ root: h.root, project: new ProjectConfig(h.root, user.store) }), queue, { persist: async () => {} });
    const call = h.call('edit_file', { path: 'src/a.ts', old_str: 'const b = 2', new_str: 'const b = 3' });
    await waiting;
    ac.abort();
    const r = await call;
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('ABORTED');
    expect(await h.read('src/a.ts')).toBe('export const a = 1;\nexport const b = 2;\n');
    expect(queue.list()).toHaveLength(0);
  });
});

describe('edits.mode "review" (the default)', () => {
  it('writes without asking', async () => {
    const r = await h.call('edit_file', { path: 'src/a.ts', old_str: 'const b = 2', new_str: 'const b = 3' });
    expect(r.ok).toBe(true);
    expect(requests).toHaveLength(0);
  });

  it('refuses agent writes into .loupe/ and .git/ without asking anyone', async () => {
    for (const rel of ['.loupe/config.json', '.git/hooks/pre-commit']) {
      const r = await h.call('write_file', { path: rel, content: '#!/bin/sh\n' });
      expect(r.error?.code).toBe('INVALID_PATH');
    }
    expect(requests).toHaveLength(0);
  });
});

describe('read rules', () => {
  it('read_file honours a deny rule for reads', async () => {
    await setMode('review', [{ kind: 'read', pattern: '.env', action: 'deny' }]);
    await h.write('.env', 'TOKEN=secret\n');
    const r = await h.call('read_file', { path: '.env' });
    expect(r.error?.code).toBe('PERMISSION_DENIED');
    expect(r.output).not.toContain('secret');
    expect((await h.call('read_file', { path: 'src/a.ts' })).ok).toBe(true);
  });
});
