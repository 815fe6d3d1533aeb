// Every stylesheet of the renderer closes each block it opens. A rule left open is not an error to
// the bundler: it nests whatever CSS comes after it, in whichever file the bundle puts next, and
// a dialog far away loses its styles when the chunks move (a merge once dropped one brace).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const RENDERER = path.resolve(__dirname, '../src/renderer');

function stylesheets(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const abs = path.join(dir, e.name);
    return e.isDirectory() ? stylesheets(abs) : e.name.endsWith('.css') ? [abs] : [];
  });
}

/** The first place a block is closed that was never opened, or the line of a block left open; null when balanced. */
function unbalanced(css: string): string | null {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, (q) => ' '.repeat(q.length));
  const open: number[] = [];
  let line = 1;
  for (const ch of text) {
    if (ch === '\n') line++;
    else if (ch === '{') open.push(line);
    else if (ch === '}' && open.pop() === undefined) return `a } on line ${line} closes nothing`;
  }
  return open.length ? `the block opened on line ${open.at(-1)} is never closed` : null;
}

it('every renderer stylesheet closes each block it opens', () => {
  const files = stylesheets(RENDERER);
  expect(files.length).toBeGreaterThan(10);
  const problems = files.flatMap((f) => {
    const why = unbalanced(readFileSync(f, 'utf8'));
    return why ? [`${path.relative(RENDERER, f)}: ${why}`] : [];
  });
  expect(problems).toEqual([]);
});

it('finds a rule left open, a stray close, and leaves braces in comments and strings alone', () => {
  expect(unbalanced('.a {\n  color: red;\n.b {\n  color: blue;\n}\n')).toBe('the block opened on line 1 is never closed');
  expect(unbalanced('.a { color: red; }\n}\n')).toBe('a } on line 2 closes nothing');
  expect(unbalanced('/* { */ .a { content: "}"; }\n@media (x) { .b { c: d; } }\n')).toBeNull();
});
