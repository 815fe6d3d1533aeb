// The agent sees what its edit broke: the real TypeScript server (typescript-language-server
// with Loupe's TypeScript) and the real pyright, inside the OS sandbox where one works, behind the
// real write tools. Each edit's result ends with exactly the problems it introduced, at the line
// the model reads now; problems the file already had, even when the edit moved them, are not new.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApprovalQueue, type ApprovalAnswer, type ApprovalRequest } from '../../src/main/services/permissions/approvalQueue';
import { PermissionGate } from '../../src/main/services/permissions/permissionGate';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine } from '../../src/main/services/permissions/ruleEngine';
import { foreseeFiles } from '../../src/main/agent/edit/foresee';
import { undoRequests } from '../../src/main/services/modlog/groupRollback';
import { harness, type Harness } from '../support/toolHarness';
import { testTrust } from '../support/trust';

// A cold server on a loaded two-core machine can take many seconds; the bound is the project's.
const WAIT = { limits: { diagnostics_wait_ms: 90_000 } };
const SLOW = 240_000;

let h: Harness | null = null;
afterEach(async () => {
  await h?.cleanup();
  h = null;
});

async function tsProject(files: Record<string, string>): Promise<Harness> {
  h = await harness({ lsp: true, git: true });
  await h.write('.loupe/config.json', JSON.stringify(WAIT));
  await h.write('tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022'] }, include: ['src'] }));
  for (const [rel, text] of Object.entries(files)) await h.write(rel, text);
  return h;
}

/** The harness's gate asks `respond` (ask mode's cards); the trust store it needs is cleaned up by the returned function. */
function askWith(h: Harness, respond: (request: ApprovalRequest) => Promise<ApprovalAnswer>): () => void {
  const queue = new ApprovalQueue('wait');
  queue.setResponder(respond);
  const user = testTrust();
  const project = new ProjectConfig(h.root, user.store);
  h.ctx.permissions = new PermissionGate(new PermissionEngine({ root: h.root, project }), queue, { persist: (r) => project.addRules(r) });
  return user.cleanup;
}

interface Diag {
  introduced: { line: number; column: number; severity: string; message: string; source: string; code?: string }[];
  resolved_count: number;
  available: boolean;
}

const diagnosticsOf = (r: { data?: Record<string, unknown> }) => r.data?.diagnostics as Diag | undefined;

const FIVE_ERRORS = [
  'export const a: number = "one";',
  'export const b: string = 2;',
  'export function f(x: number): string {',
  '  return x;',
  '}',
  'export const c: boolean = f(1);',
  'export const d = undefinedName;',
  '',
].join('\n');

describe('TypeScript', () => {
  it(
    'an edit that breaks a type reports exactly the new error, at its line',
    async () => {
      const h = await tsProject({
        'src/math.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
        'src/main.ts': "import { add } from './math';\n\nexport const total: number = add(1, 2);\nexport const label = 'total';\n",
      });
      await h.call('read_file', { path: 'src/main.ts' });
      const r = await h.call('edit_file', { path: 'src/main.ts', old_str: "export const label = 'total';", new_str: "// the label\nexport const label: number = 'total';" });
      expect(r.ok, r.output).toBe(true);
      const d = diagnosticsOf(r)!;
      expect(d.available).toBe(true);
      expect(d.introduced).toEqual([expect.objectContaining({ line: 5, column: 14, severity: 'error', source: 'typescript', code: '2322', message: "Type 'string' is not assignable to type 'number'." })]);
      expect(d.resolved_count).toBe(0);
      expect(r.output.trimEnd().split('\n').slice(-2)).toEqual([
        'New problems from this edit (1 error):',
        "  src/main.ts:5:14 error: Type 'string' is not assignable to type 'number'. (typescript 2322)",
      ]);
      // The log line records the counts, and the file holds the edit.
      const log = await h.call('modification_log', { file: 'src/main.ts' });
      expect(JSON.stringify(log.data)).toContain('"errors":1');
      expect(await h.read('src/main.ts')).toContain("label: number = 'total'");
    },
    SLOW,
  );

  it(
    'an edit in a file with 5 errors that adds none says "no new problems", though it moved them all',
    async () => {
      const h = await tsProject({ 'src/broken.ts': FIVE_ERRORS });
      const check = await h.call('diagnostics', { path: 'src/broken.ts' });
      expect((check.data as { total: number }).total).toBe(5);
      await h.call('read_file', { path: 'src/broken.ts' });
      // Two lines inserted at the top: every problem moves down by two.
      const r = await h.call('edit_file', { path: 'src/broken.ts', old_str: 'export const a: number = "one";', new_str: '// Constants.\n\nexport const a: number = "one";' });
      expect(r.ok, r.output).toBe(true);
      const d = diagnosticsOf(r)!;
      expect(d).toMatchObject({ available: true, introduced: [], resolved_count: 0 });
      expect(r.output.trimEnd().endsWith('no new problems')).toBe(true);
    },
    SLOW,
  );

  it(
    'write_file, code_modify and code_rollback end the same way',
    async () => {
      const h = await tsProject({ 'src/n.ts': 'export const n: number = 1;\n' });
      const w = await h.call('write_file', { path: 'src/m.ts', content: 'export const m: string = 1;\n' });
      expect(diagnosticsOf(w)?.introduced).toEqual([expect.objectContaining({ line: 1, code: '2322' })]);
      await h.call('read_file', { path: 'src/n.ts' });
      const c = await h.call('code_modify', { file_path: 'src/n.ts', operation: 'insert_after', line: 1, new_content: 'export const k: boolean = 0;' });
      expect(diagnosticsOf(c)?.introduced).toEqual([expect.objectContaining({ line: 2, code: '2322' })]);
      const back = await h.call('code_rollback', { modification_id: (c.data as { modification_id: string }).modification_id });
      expect(diagnosticsOf(back)).toMatchObject({ available: true, introduced: [], resolved_count: 1 });
      expect(back.output.trimEnd().endsWith('no new problems')).toBe(true);
    },
    SLOW,
  );
});

describe('undo', () => {
  it(
    "undoing a request records on each file's line what the undo introduced",
    async () => {
      const h = await tsProject({ 'src/a.ts': 'export const a: number = 1;\n' });
      // The request fixed a type error; undoing it brings the error back, and the undo says so.
      await h.call('read_file', { path: 'src/a.ts' });
      await h.call('edit_file', { path: 'src/a.ts', old_str: 'number = 1', new_str: 'number = "1"' });
      const fixed = await h.call('edit_file', { path: 'src/a.ts', old_str: 'number = "1"', new_str: 'number = 1', correlation_id: 'req-fix' });
      expect(diagnosticsOf(fixed)).toMatchObject({ available: true, introduced: [], resolved_count: 1 });

      const seen = foreseeFiles(h.ctx.lsp);
      const out = await seen.land(() => undoRequests(h.ctx.modlog, { sessionId: h.ctx.session.id, correlations: ['req-fix'] }, { onConflict: 'refuse', tool: 'undo', confirm: seen.confirm }));
      expect(out.rolled_back).toHaveLength(1);
      expect(await h.read('src/a.ts')).toBe('export const a: number = "1";\n');
      const log = await h.call('modification_log', { file: 'src/a.ts' });
      const undo = (log.data as { modifications: { tool: string; diagnostics?: { errors: number; introduced: { line: number; code?: string }[] } }[] }).modifications.find((m) => m.tool === 'undo');
      expect(undo?.diagnostics).toMatchObject({ errors: 1, introduced: [expect.objectContaining({ line: 1, code: '2322' })] });
    },
    SLOW,
  );
});

describe('problems that come after the bound', () => {
  // 1 ms: no server answers that fast, so every write's problems come late, on any machine.
  const LATE = { limits: { diagnostics_wait_ms: 1 } };
  type Logged = { modification_id: string; diagnostics?: { available: boolean; errors: number; resolved_count: number; introduced: { line: number; code?: string }[] } };
  const logged = async (h: Harness, file: string) => ((await h.call('modification_log', { file })).data as { modifications: Logged[] }).modifications;
  const lines = async (h: Harness) => (await h.read('.loupe/modifications.jsonl')).trim().split('\n').map((l) => JSON.parse(l) as { type: string; modification_id: string });

  it(
    'the result says unavailable; the answer, when it comes, is a later line of the log that modification_log shows — edit after edit, each its own',
    async () => {
      const h = await tsProject({ 'src/main.ts': 'export const total: number = 3;\n' });
      await h.write('.loupe/config.json', JSON.stringify(LATE));
      await h.call('read_file', { path: 'src/main.ts' });
      const broke = await h.call('edit_file', { path: 'src/main.ts', old_str: 'number = 3', new_str: 'number = "3"' });
      expect(diagnosticsOf(broke)?.available).toBe(false);
      expect(broke.output).toMatch(/Diagnostics unavailable \(typescript-language-server/);
      // The next edit of the same file comes while the first one's answer is still awaited.
      const fixed = await h.call('edit_file', { path: 'src/main.ts', old_str: 'number = "3"', new_str: 'number = 4' });
      expect(diagnosticsOf(fixed)?.available).toBe(false);
      const ids = [broke, fixed].map((r) => (r.data as { modification_id: string }).modification_id);
      await vi.waitFor(async () => expect((await logged(h, 'src/main.ts')).every((m) => m.diagnostics?.available)).toBe(true), { timeout: 180_000, interval: 250 });
      const [second, first] = await logged(h, 'src/main.ts');
      expect(first).toMatchObject({ modification_id: ids[0], diagnostics: { errors: 1, resolved_count: 0, introduced: [expect.objectContaining({ line: 1, code: '2322' })] } });
      expect(second).toMatchObject({ modification_id: ids[1], diagnostics: { errors: 0, resolved_count: 1, introduced: [] } });
      // Append-only: the modifications' own lines are as written, the answers follow them.
      expect((await lines(h)).map((l) => [l.type, l.modification_id])).toEqual([
        ['modification', ids[0]],
        ['modification', ids[1]],
        ['diagnostics', ids[0]],
        ['diagnostics', ids[1]],
      ]);
    },
    SLOW,
  );

  it(
    'a write that does not happen gets no late answer, and the server keeps the file as it is',
    async () => {
      const h = await tsProject({ 'src/main.ts': 'export const total: number = 3;\n' });
      await h.write('.loupe/config.json', JSON.stringify({ ...LATE, edits: { mode: 'ask' } }));
      const cleanup = askWith(h, async () => ({ answer: 'deny', message: 'no' }));
      try {
        await h.call('read_file', { path: 'src/main.ts' });
        const denied = await h.call('edit_file', { path: 'src/main.ts', old_str: 'number = 3', new_str: 'number = "3"' });
        expect(denied.error?.code).toBe('PERMISSION_DENIED');
        // A look at the file as it is (asked again while a cold server on a loaded machine is
        // past the look's own bound): the server holds the file's text, not the refused one.
        await vi.waitFor(async () => expect((await h.call('diagnostics', { path: 'src/main.ts' })).data).toMatchObject({ total: 0, available: true }), { timeout: 180_000, interval: 500 });
        expect(await h.read('.loupe/modifications.jsonl').catch(() => '')).toBe('');
      } finally {
        cleanup();
      }
    },
    SLOW,
  );
});

describe('"ask before every edit"', () => {
  it(
    'the card shows what the edit would introduce before anything is written',
    async () => {
      const h = await tsProject({ 'src/main.ts': 'export const total: number = 3;\n' });
      await h.write('.loupe/config.json', JSON.stringify({ ...WAIT, edits: { mode: 'ask' } }));
      const seen: { request: ApprovalRequest; onDisk: string }[] = [];
      let answer: ApprovalAnswer = { answer: 'deny', message: 'not like that' };
      const cleanup = askWith(h, async (request) => {
        seen.push({ request, onDisk: readFileSync(path.join(h.root, 'src/main.ts'), 'utf8') });
        return answer;
      });
      try {
        await h.call('read_file', { path: 'src/main.ts' });
        const denied = await h.call('edit_file', { path: 'src/main.ts', old_str: 'number = 3', new_str: 'number = "3"' });
        expect(denied.error?.code).toBe('PERMISSION_DENIED');
        expect(seen[0].onDisk).toBe('export const total: number = 3;\n');
        expect(seen[0].request.edit?.diagnostics).toMatchObject({ available: true, errors: 1, introduced: [expect.objectContaining({ line: 1, code: '2322' })] });
        expect(await h.read('src/main.ts')).toBe('export const total: number = 3;\n');
        // The proposed text was only an unsaved document: the file as it is has no problem.
        const now = await h.call('diagnostics', { path: 'src/main.ts' });
        expect(now.data).toMatchObject({ total: 0, available: true });

        answer = { answer: 'once' };
        const allowed = await h.call('edit_file', { path: 'src/main.ts', old_str: 'number = 3', new_str: 'number = "3"' });
        expect(seen[1].request.edit?.diagnostics?.errors).toBe(1);
        expect((allowed.data?.diagnostics as { errors: number }).errors).toBe(1);
      } finally {
        cleanup();
      }
    },
    SLOW,
  );
});

describe('Python (pyright)', () => {
  async function pyProject(files: Record<string, string>): Promise<Harness> {
    h = await harness({ lsp: true, git: true });
    await h.write('.loupe/config.json', JSON.stringify(WAIT));
    for (const [rel, text] of Object.entries(files)) await h.write(rel, text);
    return h;
  }

  it(
    'an edit that breaks a type reports exactly the new error, at its line',
    async () => {
      const h = await pyProject({ 'app.py': 'def add(a: int, b: int) -> int:\n    return a + b\n\n\ntotal: int = add(1, 2)\n' });
      await h.call('read_file', { path: 'app.py' });
      const r = await h.call('edit_file', { path: 'app.py', old_str: 'total: int = add(1, 2)', new_str: '# the total\ntotal: str = add(1, 2)' });
      expect(r.ok, r.output).toBe(true);
      const d = diagnosticsOf(r)!;
      expect(d.available).toBe(true);
      expect(d.introduced).toHaveLength(1);
      expect(d.introduced[0]).toMatchObject({ line: 6, column: 14, severity: 'error', source: 'Pyright', code: 'reportAssignmentType' });
      expect(d.introduced[0].message).toContain('"int" is not assignable to declared type "str"');
      expect(r.output).toMatch(/New problems from this edit \(1 error\):\n {2}app\.py:6:14 error: /);
    },
    SLOW,
  );

  it(
    'an edit in a file with 5 errors that adds none says "no new problems"',
    async () => {
      const five = ['a: int = "one"', 'b: str = 2', 'def f(x: int) -> str:', '    return x', 'c: bool = f(1)', 'd = undefined_name', ''].join('\n');
      const h = await pyProject({ 'broken.py': five });
      const check = await h.call('diagnostics', { path: 'broken.py', severity: 'error' });
      expect((check.data as { total: number }).total).toBe(5);
      await h.call('read_file', { path: 'broken.py' });
      const r = await h.call('edit_file', { path: 'broken.py', old_str: 'a: int = "one"', new_str: '"""Constants."""\n\na: int = "one"' });
      expect(r.ok, r.output).toBe(true);
      expect(diagnosticsOf(r)).toMatchObject({ available: true, introduced: [], resolved_count: 0 });
      expect(r.output.trimEnd().endsWith('no new problems')).toBe(true);
    },
    SLOW,
  );
});
