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

it('reaches a path exactly when a leading part, or for a slash-free pattern a name, matches', () => {
  // The definition written the plain way (split, then join each leading part); coversPath finds
  // the same parts by slash positions. ASCII only here, so lower case stands for its `i` flag.
  const same = (glob: string, text: string) => matchPath(glob.toLowerCase(), text.toLowerCase());
  const byDefinition = (p: string, candidate: string): boolean => {
    const glob = p.replace(/^(\.\/)+/, '');
    const parts = candidate.split('/');
    for (let i = parts.length; i >= 1; i--) {
      if (same(glob, parts.slice(0, i).join('/'))) return true;
      if (!glob.includes('/') && same(glob, parts[i - 1])) return true;
    }
    return false;
  };
  // Empty names, leading, trailing and doubled slashes included.
  const text = fc.array(fc.constantFrom('a', 'A', '.env', 'src', '', '/', '//', 'x.pem', '.', './'), { maxLength: 8 }).map((s) => s.join(''));
  // Globs with `*`, `**`, `?` and `{…}` with and without slashes, since the tests differ by kind.
  const glob = fc.array(fc.constantFrom('a', '.env', 'src', '/', '*', '**', '?', '{a,.env}', 'x.pem', '.', '\\'), { minLength: 1, maxLength: 6 }).map((s) => s.join(''));
  fc.assert(
    fc.property(fc.oneof(pattern, glob, text.filter((t) => t.length > 0)), fc.oneof(text, relPath), (p, candidate) => {
      expect(coversPath(p, candidate)).toBe(byDefinition(p, candidate));
    }),
    { numRuns: 10000, seed: 11 },
  );
  // Slash-free patterns with `**` (which crosses slashes), against paths of the same names.
  const piece = fc.constantFrom('a', '.env', 'src', 'x.pem');
  const crossing = fc.array(fc.oneof(piece, fc.constantFrom('**', '*', '?')), { minLength: 2, maxLength: 4 }).map((s) => s.join('')).filter((g) => g.includes('**'));
  fc.assert(
    fc.property(crossing, fc.array(piece, { minLength: 1, maxLength: 5 }).map((s) => s.join('/')), (p, candidate) => {
      expect(coversPath(p, candidate)).toBe(byDefinition(p, candidate));
    }),
    { numRuns: 3000, seed: 12 },
  );
});
