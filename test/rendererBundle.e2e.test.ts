// What the page must evaluate before its first screen: the entry script and what it imports
// statically. Monaco and xterm are loaded on demand (viewer/FileViewer, terminal/TerminalPane);
// either in the entry would delay the first tree row by its evaluation (xterm: a third of it).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const OUT = path.resolve(__dirname, '../out/renderer');

/** The entry script and every chunk it imports statically, transitively. */
function firstScripts(): Map<string, string> {
  const html = readFileSync(path.join(OUT, 'index.html'), 'utf8');
  const seen = new Map<string, string>();
  const queue = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
  while (queue.length) {
    const rel = queue.shift()!;
    if (seen.has(rel)) continue;
    const text = readFileSync(path.join(OUT, rel), 'utf8');
    seen.set(rel, text);
    // Static imports only: `import … from "./x.js"` / `import "./x.js"`, not `import("./x.js")`.
    for (const m of text.matchAll(/(?:^|[;\s}])import\s*(?:[\w${},*\s]+from\s*)?["']\.\/([^"']+\.js)["']/g)) queue.push(`assets/${m[1]}`);
  }
  return seen;
}

it('keeps xterm and Monaco out of the scripts the first screen waits for', () => {
  if (!existsSync(path.join(OUT, 'index.html'))) throw new Error('loupe is not built: run `npm run build` before this test.');
  const scripts = firstScripts();
  expect(scripts.size).toBeGreaterThan(0);
  const all = [...scripts.values()].join('\n');
  expect(all).toContain('file-tree-item');
  expect(all).not.toContain('xterm-helper-textarea');
  expect(all).not.toContain('monaco-editor');
  const bytes = [...scripts.values()].reduce((n, t) => n + Buffer.byteLength(t), 0);
  expect(bytes).toBeLessThan(450 * 1024);
});
