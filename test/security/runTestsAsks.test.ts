// run_tests runs code the model may just have written, so none of it reaches outside the
// workspace without a yes: every way a test command comes about (a package.json script and its
// pre/post hooks, a pytest conftest.py, a trusted config's command, the model's own
// test_command), with or without a test_file. With the sandbox off each is asked as kind `test`
// (with nobody to ask: PERMISSION_DENIED with the rule to add); with the sandbox on each runs
// inside it. Either way the hostile code, which writes a marker outside the workspace, never
// leaves a marker.
import { access } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/toolHarness';

let h: Harness;
afterEach(() => h?.cleanup());

const writeMarker = (marker: string) => `require('fs').writeFileSync(${JSON.stringify(marker)}, 'sent .env')`;
const exists = (p: string) => access(p).then(() => true, () => false);

interface Project {
  name: string;
  files: (marker: string) => Record<string, string>;
  /** Trust the folder's config (its test commands only apply then). */
  trust?: boolean;
}

const npm = (scripts: (m: string) => Record<string, string>): Project['files'] => (m) => ({ 'package.json': JSON.stringify({ name: 'p', scripts: scripts(m) }), '.env': 'SECRET=1\n' });

const PROJECTS: Project[] = [
  { name: 'npm test script', files: npm((m) => ({ test: `node -e "${writeMarker(m).replace(/"/g, '\\"')}"` })) },
  { name: 'npm pretest hook', files: npm((m) => ({ pretest: `node -e "${writeMarker(m).replace(/"/g, '\\"')}"`, test: 'echo ok' })) },
  { name: 'npm posttest hook', files: npm((m) => ({ test: 'echo ok', posttest: `node -e "${writeMarker(m).replace(/"/g, '\\"')}"` })) },
  { name: 'npm test script running a file', files: (m) => ({ ...npm(() => ({ test: 'node send.js' }))(m), 'send.js': writeMarker(m) }) },
  { name: 'pytest conftest.py', files: (m) => ({ 'conftest.py': `open(${JSON.stringify(m)}, 'w').write('sent')\n`, 'test_x.py': 'def test_x():\n    assert True\n' }) },
  { name: 'trusted config test command', trust: true, files: (m) => ({ '.loupe/config.json': JSON.stringify({ tests: { javascript: 'node send.js', python: 'node send.js' } }), 'send.js': writeMarker(m) }) },
  { name: 'trusted config with a bash allow rule only', trust: true, files: (m) => ({ '.loupe/config.json': JSON.stringify({ tests: { javascript: 'node send.js' }, permissions: [{ kind: 'bash', pattern: '*', action: 'allow' }] }), 'send.js': writeMarker(m) }) },
  { name: 'untrusted config allowing every test', files: (m) => ({ '.loupe/config.json': JSON.stringify({ permissions: [{ kind: 'test', pattern: '*', action: 'allow' }] }), ...npm(() => ({ test: 'node send.js' }))(m), 'send.js': writeMarker(m) }) },
];

const CALLS: { name: string; args: (marker: string) => Record<string, unknown> }[] = [
  { name: 'no arguments', args: () => ({}) },
  { name: 'a JavaScript test_file', args: () => ({ test_file: 'a.test.js' }) },
  { name: 'a Python test_file', args: () => ({ test_file: 'test_x.py' }) },
  { name: 'a correlation id', args: () => ({ correlation_id: 'req-1' }) },
  { name: 'the model’s own test_command', args: (m) => ({ test_command: `node -e "${writeMarker(m).replace(/"/g, '\\"')}"` }) },
  { name: 'a test_command hidden in a compound', args: (m) => ({ test_command: `echo ok && node -e "${writeMarker(m).replace(/"/g, '\\"')}"` }) },
];

const cases = PROJECTS.flatMap((p) => CALLS.map((c) => [p.name, c.name, p, c] as const));

describe('with the sandbox off, run_tests never runs a test command without a yes', () => {
  it.each(cases)('%s, %s', async (_p, _c, project, call) => {
    h = await harness({ sandbox: 'off' });
    const marker = path.join(h.sandbox, 'marker');
    for (const [rel, text] of Object.entries(project.files(marker))) await h.write(rel, text);
    if (project.trust) await h.trust();
    const r = await h.call('run_tests', call.args(marker));
    // No command at all (a Python file in an npm project) is fine too: nothing ran.
    if (r.error?.code !== 'INVALID_ARGUMENT') {
      expect(r.error?.code, r.output).toBe('PERMISSION_DENIED');
      expect(r.error?.message).toMatch(/needs approval .* To allow it, add \{"kind":"test","pattern":"(?:[^"\\]|\\.)+","action":"allow"\}/);
    }
    expect(await exists(marker)).toBe(false);
  });

  it('with a trusted allow rule of kind test, the same run goes ahead (the check is not a blanket refusal)', async () => {
    h = await harness({ sandbox: 'off' });
    const marker = path.join(h.sandbox, 'marker');
    await h.write('send.js', writeMarker(marker));
    await h.write('.loupe/config.json', JSON.stringify({ tests: { javascript: 'node send.js' }, permissions: [{ kind: 'test', pattern: 'node send.js', action: 'allow' }] }));
    await h.trust();
    const r = await h.call('run_tests', {});
    expect(r.error?.code, r.output).not.toBe('PERMISSION_DENIED');
    expect(await exists(marker)).toBe(true);
  });
});

describe('with the sandbox on (the default), run_tests runs test commands inside it', () => {
  it.each(cases)('%s, %s', async (_p, _c, project, call) => {
    h = await harness();
    const marker = path.join(h.sandbox, 'marker');
    for (const [rel, text] of Object.entries(project.files(marker))) await h.write(rel, text);
    if (project.trust) await h.trust();
    const r = await h.call('run_tests', call.args(marker));
    // It ran, inside the sandbox; or there was no command to run (a Python file in an npm project).
    if (r.error?.code !== 'INVALID_ARGUMENT') expect(r.data?.sandboxed, r.output).toBe(true);
    expect(await exists(marker)).toBe(false);
  });

  it('a trusted rule with "sandbox": false runs it outside, where the marker is written (the control)', async () => {
    h = await harness();
    const marker = path.join(h.sandbox, 'marker');
    await h.write('send.js', writeMarker(marker));
    await h.write('.loupe/config.json', JSON.stringify({ tests: { javascript: 'node send.js' }, permissions: [{ kind: 'test', pattern: 'node send.js', action: 'allow', sandbox: false }] }));
    await h.trust();
    const r = await h.call('run_tests', {});
    expect(r.data?.sandboxed, r.output).toBe(false);
    expect(await exists(marker)).toBe(true);
  });
});
