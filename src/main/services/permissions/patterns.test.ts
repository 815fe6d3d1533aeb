import fc from 'fast-check';
import { expect, it } from 'vitest';
import { coversPath, matchPath } from './patterns';

const segment = fc.constantFrom('src', '.env', 'secrets', 'a.pem', 'Deep', 'x.y', '.env.local', 'node_modules', 'ENV');
const relPath = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));
const pattern = fc.oneof(
  relPath,
  segment,
  segment.map((s) => `**/${s}`),
  segment.map((s) => `${s}/**`),
  segment.map((s) => `*${s.slice(-3)}`),
  segment.map((s) => `${s.slice(0, 3)}*`),
  fc.constant('**'),
);
const flip = (s: string) => [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

it('a deny or ask rule reaches every path its pattern names, in any letter case, and everything inside it', () => {
  fc.assert(
    fc.property(pattern, relPath, relPath, (p, rel, tail) => {
      if (!matchPath(p, rel)) return;
      expect(coversPath(p, rel)).toBe(true);
      expect(coversPath(p, flip(rel))).toBe(true);
      expect(coversPath(p, `${rel}/${tail}`)).toBe(true);
    }),
    { numRuns: 2000, seed: 6 },
  );
});

it('a pattern without a slash reaches that name at any depth', () => {
  fc.assert(
    fc.property(segment, relPath, (name, dir) => {
      expect(coversPath(name, `${dir}/${name}`)).toBe(true);
      expect(coversPath(name, `${dir}/${name}/inner.txt`)).toBe(true);
    }),
    { numRuns: 500, seed: 7 },
  );
  expect(coversPath('./.env', '.env')).toBe(true);
  expect(coversPath('./secrets/**', 'secrets/a')).toBe(true);
  expect(coversPath('.env', '.env.local')).toBe(false);
  expect(coversPath('secrets/**', 'notsecrets/a')).toBe(false);
  expect(coversPath('src/.env', 'app/src/.env')).toBe(false);
});
