import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listBundle } from './bundle';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Every script of a package below its top folder, on disk here. */
function nestedScripts(pkgDir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(pkgDir, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    const st = statSync(path.join(pkgDir, r), { throwIfNoEntry: false });
    if (!st || name === 'node_modules') continue;
    if (st.isDirectory()) out.push(...nestedScripts(pkgDir, r));
    else if (rel.includes('/') && /\.(c|m)?js$/.test(name)) out.push(r);
  }
  return out;
}

describe('the bundle copied to a remote machine', () => {
  it('keeps the code a package keeps in folders named like docs or tests below its top', () => {
    const files = new Set(listBundle(ROOT, '0.0.0-test').files.map((f) => f.rel));
    expect(files).toContain('node_modules/yaml/dist/doc/Document.js');
    expect(files).toContain('out/main/cli.js');
    for (const pkg of ['yaml', 'zod', 'ws', '@modelcontextprotocol/sdk']) {
      const dir = path.join(ROOT, 'node_modules', pkg);
      const missing = nestedScripts(dir)
        .filter((r) => /(^|\/)(doc|docs|test|tests|example|examples)\//.test(r.split('/').slice(1).join('/')))
        .map((r) => `node_modules/${pkg}/${r}`)
        .filter((r) => !files.has(r));
      expect(missing).toEqual([]);
    }
  });

  it('leaves out what the host never loads', () => {
    const rels = listBundle(ROOT, '0.0.0-test').files.map((f) => f.rel);
    expect(rels.some((r) => r.startsWith('node_modules/@devcontainers/cli/'))).toBe(false);
    expect(rels.some((r) => r.startsWith('node_modules/.bin/'))).toBe(false);
    expect(rels.some((r) => /^node_modules\/function-bind\/test\//.test(r))).toBe(false);
  });
});
