// Check-then-use races: a child process flips a folder (or a file) between the real thing and a
// symbolic link to a pretend home thousands of times while read_file and write_file run in a
// loop. Whatever the interleaving, no result may carry the home's secret, nothing in the home
// may change, and no copy of the secret may land in the workspace (a before-blob, say).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../support/toolHarness';
import { makeHome, SECRET, snapshot } from './outsideHome';

const FLIP_MS = 2000;

// Swaps `name` with a link to `target` and back, by renames, as fast as it can; repairs the
// scene when a write of ours got in between (a folder or file Loupe created where `name` was
// missing is moved aside, inside the workspace). Prints the number of full flips.
const FLIPPER = `
const fs = require('fs'), path = require('path');
const [ws, target, name, ms] = process.argv.slice(1);
const d = path.join(ws, name), real = d + '.real', link = d + '.link';
let flips = 0, junk = 0;
const lst = (p) => { try { return fs.lstatSync(p); } catch { return null; } };
function repair() {
  if (!lst(link)) { const st = lst(d); if (st && st.isSymbolicLink() && lst(real)) fs.renameSync(d, link); else if (!lst(link)) fs.symlinkSync(target, link); }
  if (lst(real)) {
    const st = lst(d);
    if (st) fs.renameSync(d, path.join(ws, 'junk-' + process.pid + '-' + junk++));
    fs.renameSync(real, d);
  }
}
const end = Date.now() + Number(ms);
while (Date.now() < end) {
  try { fs.renameSync(d, real); fs.renameSync(link, d); fs.renameSync(d, link); fs.renameSync(real, d); flips++; }
  catch { try { repair(); } catch {} }
}
try { repair(); } catch {}
process.stdout.write(String(flips));
`;

function flip(ws: string, target: string, name: string, ms: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', FLIPPER, ws, target, name, String(ms)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(Number(out)));
  });
}

let h: Harness;
afterEach(() => h?.cleanup());

interface Escapes {
  /** Results that carried the secret. */
  reads: number;
  /** Entries created or changed in the pretend home. */
  writes: number;
  /** Workspace files (blobs included) holding the secret. */
  copied: number;
}

function countEscapes(home: string, before: Record<string, string>, texts: string[]): Escapes {
  const after = snapshot(home);
  const writes = Object.keys(after).filter((k) => after[k] !== before[k] && !after[k].startsWith('dir ')).length + Object.keys(before).filter((k) => !(k in after)).length;
  let copied = 0;
  for (const [rel, what] of Object.entries(snapshot(h.root))) {
    if (what.startsWith('file ') && !rel.startsWith('.git/') && readFileSync(path.join(h.root, rel), 'utf8').includes(SECRET)) copied++;
  }
  return { reads: texts.filter((t) => t.includes(SECRET)).length, writes, copied };
}

async function race(target: 'folder' | 'file'): Promise<{ escapes: Escapes; flips: number; calls: number }> {
  h = await harness();
  const home = makeHome(h.sandbox);
  mkdirSync(path.join(home, 'd'));
  writeFileSync(path.join(home, 'd', 'f.txt'), `${SECRET}\n`);
  await h.write('d/f.txt', 'inside\n');
  await h.write('g.txt', 'inside\n');
  const before = snapshot(home);
  const flipping = target === 'folder' ? flip(h.root, path.join(home, 'd'), 'd', FLIP_MS) : flip(h.root, path.join(home, 'secret.txt'), 'g.txt', FLIP_MS);
  let done = false;
  void flipping.then(() => (done = true));
  const texts: string[] = [];
  const keep = (r: { output: string; data?: unknown }) => texts.push(r.output, JSON.stringify(r.data ?? null));
  const file = target === 'folder' ? 'd/f.txt' : 'g.txt';
  let calls = 0;
  // Loops at once, so calls also interleave with each other: two write and read, one only reads.
  const loop = async (n: number, writes: boolean) => {
    for (let i = 0; !done; i++) {
      keep(await h.call('read_file', { path: file }));
      calls++;
      if (!writes) continue;
      keep(await h.call('write_file', { path: file, content: `inside ${n}-${i}\n` }));
      if (target === 'folder') keep(await h.call('write_file', { path: `d/new-${n}-${i}.txt`, content: `new ${i}\n` }));
      calls += target === 'folder' ? 2 : 1;
    }
  };
  await Promise.all([loop(0, true), loop(1, true), loop(2, false)]);
  const flips = await flipping;
  return { escapes: countEscapes(home, before, texts), flips, calls };
}

describe('a path flipped to a link between check and use', () => {
  it.each(['folder', 'file'] as const)('a %s flipped thousands of times lets nothing out and nothing in', async (target) => {
    const { escapes, flips, calls } = await race(target);
    expect(flips).toBeGreaterThan(1000);
    expect(calls).toBeGreaterThan(20);
    expect(escapes).toEqual({ reads: 0, writes: 0, copied: 0 });
  }, 20_000);
});
