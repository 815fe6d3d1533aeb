// Model-based test of the modification lifecycle: seeded random sequences of code_modify,
// edit_file, user edits on disk and rollbacks (whole and per hunk) over three files, checked
// after every step against a plain in-memory model. Every line is unique, so "no user byte
// lost" is a set property: a rollback may only take away lines the rolled-back modification
// added, and a refused rollback changes nothing at all (files, log, git index).
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/toolHarness';
import { git } from '../support/tmp';
import type { ModificationEntry } from '../../src/main/services/modlog/types';

function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ModelFile {
  lines: string[];
  eol: string;
  finalNewline: boolean;
}

const render = (f: ModelFile) => f.lines.join(f.eol) + (f.finalNewline && f.lines.length ? f.eol : '');
const linesOf = (text: string) => {
  const l = text.split(/\r?\n/);
  if (l[l.length - 1] === '') l.pop();
  return l;
};
const minus = (a: string[], b: string[]) => {
  const s = new Set(b);
  return a.filter((x) => !s.has(x));
};
/** `sub` appears in `all` in the same relative order. */
const inOrder = (sub: string[], all: string[]) => {
  let i = 0;
  for (const x of all) if (x === sub[i]) i++;
  return i === sub.length;
};

let h: Harness | null = null;
afterEach(async () => {
  await h?.cleanup();
  h = null;
});

async function run(seed: number, steps: number, useGit: boolean) {
  h = await harness({ git: useGit });
  const H = h;
  const random = rng(seed);
  const pick = <T,>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const model: Record<string, ModelFile> = {
    'a.txt': { lines: Array.from({ length: 12 }, (_, i) => `init-a-${i}`), eol: '\n', finalNewline: true },
    'b.txt': { lines: Array.from({ length: 12 }, (_, i) => `init-b-${i}`), eol: '\r\n', finalNewline: true },
    'c.txt': { lines: Array.from({ length: 12 }, (_, i) => `init-c-${i}`), eol: '\n', finalNewline: false },
  };
  const files = Object.keys(model);
  for (const f of files) await H.write(f, render(model[f]));
  if (useGit) {
    git(H.root, 'add', '.');
    git(H.root, 'commit', '-q', '-m', 'base');
  }
  const disk = (f: string) => readFile(path.join(H.root, f), 'utf8');
  const indexOf = (f: string) => (useGit ? git(H.root, 'ls-files', '-s', '--', f).trim() : '');
  const allIndex = () => (useGit ? git(H.root, 'ls-files', '-s') : '');
  const logText = () => readFile(path.join(H.root, '.loupe/modifications.jsonl'), 'utf8').catch(() => '');
  const entries = async () => (await H.ctx.modlog.read()).entries as unknown as ModificationEntry[];
  const snapshot = async () => ({ files: await Promise.all(files.map(disk)), log: await logText(), index: allIndex() });
  /** What the index held for the file just before each modification (by id). */
  const indexBefore = new Map<string, string>();
  const stats = { modify: 0, edit: 0, user: 0, clean: 0, merged: 0, conflict: 0, refused: 0, hunk: 0 };

  async function checkModification(f: string, res: { ok: boolean; output: string; data?: Record<string, unknown> }, idxBefore: string, allBefore: string) {
    expect(res.ok, res.output).toBe(true);
    expect(await disk(f)).toBe(render(model[f]));
    const id = res.data!.modification_id as string;
    indexBefore.set(id, idxBefore);
    if (!useGit) return expect(res.data!.git_staged).toBe(false);
    // The index holds exactly this modification's result; nothing else in it moved.
    expect(res.data!.git_staged).toBe(true);
    expect(git(H.root, 'show', `:${f}`)).toBe(await disk(f));
    const others = (s: string) => s.split('\n').filter((l) => !l.endsWith(`\t${f}`)).join('\n');
    expect(others(allIndex())).toBe(others(allBefore));
  }

  for (let step = 0; step < steps; step++) {
    const f = pick(files);
    const m = model[f];
    const r = random();
    if (r < 0.35) {
      // code_modify on lines the model knows.
      await H.call('read_file', { path: f });
      const n = m.lines.length;
      const op = n > 4 ? pick(['replace', 'insert_before', 'insert_after', 'delete'] as const) : pick(['replace', 'insert_after'] as const);
      const content = Array.from({ length: int(1, 3) }, (_, k) => `a${step}-${k}`);
      const a = int(1, n);
      const b = Math.min(n, a + int(0, op === 'delete' ? 1 : 2));
      const args: Record<string, unknown> = { file_path: f, operation: op, correlation_id: `req-${step % 7}` };
      if (op === 'replace' || op === 'delete') args.line_range = [a, b];
      else args.line = a;
      if (op !== 'delete') args.new_content = content.join('\n');
      const idx = indexOf(f);
      const all = allIndex();
      const res = await H.call('code_modify', args);
      if (op === 'replace') m.lines.splice(a - 1, b - a + 1, ...content);
      else if (op === 'delete') m.lines.splice(a - 1, b - a + 1);
      else m.lines.splice(op === 'insert_before' ? a - 1 : a, 0, ...content);
      await checkModification(f, res, idx, all);
      expect(res.data!.git_diff).toMatch(new RegExp(`^diff --git a/${f} b/${f}\n`));
      stats.modify++;
    } else if (r < 0.45) {
      await H.call('read_file', { path: f });
      const i = int(0, m.lines.length - 1);
      const idx = indexOf(f);
      const all = allIndex();
      const res = await H.call('edit_file', { path: f, old_str: m.lines[i], new_str: `e${step}` });
      m.lines[i] = `e${step}`;
      await checkModification(f, res, idx, all);
      stats.edit++;
    } else if (r < 0.7) {
      // The user edits on disk, outside Loupe (never staged).
      const i = int(0, m.lines.length - 1);
      const kind = random();
      if (kind < 0.5 || m.lines.length < 5) m.lines.splice(i, 0, `u${step}`);
      else if (kind < 0.8) m.lines[i] = `u${step}`;
      else m.lines.splice(i, 1);
      await writeFile(path.join(H.root, f), render(m));
      stats.user++;
    } else {
      const log = await entries();
      if (!log.length) continue;
      const ofFile = log.filter((e) => e.file === f);
      const target = random() < 0.5 && ofFile.length ? ofFile[ofFile.length - 1] : pick(log);
      const tf = target.file;
      const byHunk = random() < 0.15;
      const before = await snapshot();
      const pre = linesOf(before.files[files.indexOf(tf)]);
      const idx = indexOf(tf);
      const res = await H.call('code_rollback', { modification_id: target.modification_id, ...(byHunk ? { hunk: 0 } : {}) });
      const after = await snapshot();
      if (!res.ok) {
        // Refused: not a byte anywhere changed, not a line appended, the index untouched.
        expect(['ROLLBACK_CONFLICT', 'INVALID_ARGUMENT']).toContain(res.error!.code);
        expect(after).toEqual(before);
        if (res.error!.code === 'ROLLBACK_CONFLICT') stats.conflict++;
        else stats.refused++;
        continue;
      }
      const post = linesOf(after.files[files.indexOf(tf)]);
      const mBefore = target.before_sha256 ? (await H.ctx.modlog.blobs.get(target.before_sha256)).toString('utf8') : '';
      const mAfter = target.after_sha256 ? (await H.ctx.modlog.blobs.get(target.after_sha256)).toString('utf8') : '';
      const added = minus(linesOf(mAfter), linesOf(mBefore));
      // No user byte lost: the rollback took away only lines the modification had added.
      expect(minus(pre, post).every((l) => added.includes(l)), `${target.modification_id} removed ${minus(minus(pre, post), added)}`).toBe(true);
      expect(inOrder(pre.filter((l) => post.includes(l)), post)).toBe(true);
      if (byHunk) stats.hunk++;
      else {
        const removed = minus(linesOf(mBefore), linesOf(mAfter));
        expect(minus(post, pre).every((l) => removed.includes(l))).toBe(true);
        expect(post.filter((l) => added.includes(l))).toEqual([]);
        if (res.data!.merged) stats.merged++;
        else {
          stats.clean++;
          expect(after.files[files.indexOf(tf)]).toBe(mBefore);
          // The index entry is back to what it was before the modification.
          if (useGit) expect(indexOf(tf)).toBe(indexBefore.get(target.modification_id));
        }
      }
      indexBefore.set(res.data!.rollback_id as string, idx);
      const text = after.files[files.indexOf(tf)];
      model[tf] = { lines: linesOf(text), eol: model[tf].eol, finalNewline: /\n$/.test(text) };
      // The model's rendering must reproduce the disk, or later steps would compare garbage.
      expect(render(model[tf])).toBe(text);
    }
    // Everything on disk is what the model says, after every step.
    for (const name of files) expect(await disk(name)).toBe(render(model[name]));
  }
  return stats;
}

describe('modification lifecycle against an in-memory model', () => {
  it('220 seeded steps in a git repository: no user byte lost, conflicts change nothing, index exact', async () => {
    const stats = await run(20260131, 220, true);
    expect(stats.clean).toBeGreaterThan(0);
    expect(stats.merged).toBeGreaterThan(0);
    expect(stats.conflict).toBeGreaterThan(0);
    expect(stats.modify + stats.edit).toBeGreaterThan(60);
  }, 180_000);

  it('80 seeded steps in a folder that is not a repository', async () => {
    const stats = await run(7, 80, false);
    expect(stats.clean + stats.merged).toBeGreaterThan(0);
  }, 120_000);
});
