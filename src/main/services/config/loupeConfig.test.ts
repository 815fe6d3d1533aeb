// .loupe/config.json checked key by key: generated configs with unknown keys and malformed values
// at random places, in random layouts. The good keys always apply; each problem is reported
// once, at the line and column where it is written.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PERMISSION_ACTIONS, PERMISSION_KINDS } from '../permissions/types';
import { parseLoupeConfig } from './loupeConfig';
import { ProblemReporter, type ConfigProblem } from './validate';

type Json = unknown;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a generated document, edited freely by the planters
type Doc = Record<string, any>;
/** A planted fault: where it goes, and what the text must show at the reported line and column. */
interface Fault {
  plant: (doc: Doc) => void;
  at: RegExp;
}

const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
const glob = fc.constantFrom('dist/**', '*.min.js', 'generated', 'vendor/**/*.js', 'build', 'node_modules');
const rule = fc.record({ kind: fc.constantFrom(...PERMISSION_KINDS), pattern: fc.constantFrom('npm test', 'rm *', '.env', 'https://example.com/*', 'src/**'), action: fc.constantFrom(...PERMISSION_ACTIONS) });
const anyJson: fc.Arbitrary<Json> = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), word, fc.array(fc.integer(), { maxLength: 2 }), fc.dictionary(word, fc.integer(), { maxKeys: 2 }));

const good = fc.record(
  {
    permissions: fc.array(rule, { maxLength: 4 }),
    search: fc.record({ exclude: fc.array(glob, { maxLength: 3 }) }),
    tests: fc.dictionary(fc.constantFrom('typescript', 'python', 'go'), fc.constantFrom('npx vitest run', 'pytest -q', 'go test ./...')),
    limits: fc.record({ test_timeout_ms: fc.integer({ min: 1, max: 600_000 }) }, { requiredKeys: [] }),
    edits: fc.record({ mode: fc.constantFrom('review', 'ask') }),
    languages: fc.array(fc.constantFrom('typescript', 'go'), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

const group = (doc: Doc, k: string) => (doc[k] ??= {});

/** Each fault is one problem: a unique name or value, so its place in the text is unambiguous. */
const fault = (n: number): fc.Arbitrary<Fault> =>
  fc.oneof(
    fc.tuple(anyJson).map(([v]): Fault => ({ plant: (d) => void (d[`zz_unknown${n}`] = v), at: new RegExp(`^"zz_unknown${n}"`) })),
    fc.constantFrom('search', 'limits', 'edits').map((g): Fault => ({ plant: (d) => void (group(d, g)[`zz_inner${n}`] = n), at: new RegExp(`^"zz_inner${n}"\\s*:\\s*${n}`) })),
    fc.nat().map((i): Fault => ({
      plant: (d) => {
        const list = (d.permissions ??= []);
        list.splice(i % (list.length + 1), 0, { kind: `nope${n}`, pattern: 'x', action: 'allow' });
      },
      at: new RegExp(`^"kind"\\s*:\\s*"nope${n}"`),
    })),
    fc.nat().map((i): Fault => ({
      plant: (d) => {
        const list = (group(d, 'search').exclude ??= []);
        list.splice(i % (list.length + 1), 0, 900_000 + n);
      },
      at: new RegExp(`^${900_000 + n}`),
    })),
    fc.constant<Fault>({ plant: (d) => void (group(d, 'tests')[`lang${n}`] = ''), at: new RegExp(`^"lang${n}"\\s*:\\s*""`) }),
  );

const layout = fc.constantFrom<(v: Json) => string>(
  (v) => JSON.stringify(v),
  (v) => JSON.stringify(v, null, 2),
  (v) => JSON.stringify(v, null, '\t'),
  (v) => `\n\n  ${JSON.stringify(v, null, 4).replace(/\n/g, '\n  ')}\n`,
);

const offsetOf = (text: string, p: ConfigProblem) => {
  const lines = text.split('\n');
  return lines.slice(0, p.line! - 1).reduce((n, l) => n + l.length + 1, 0) + p.column! - 1;
};

describe('.loupe/config.json, key by key', () => {
  it('good keys apply; each planted problem is reported once where it is written', () => {
    fc.assert(
      fc.property(good, fc.array(fc.nat(), { minLength: 1, maxLength: 4 }).chain((ns) => fc.tuple(...ns.map((_, i) => fault(i)))), layout, (config, faults, render) => {
        const doc: Doc = structuredClone(config);
        for (const f of faults) f.plant(doc);
        const text = render(doc);
        const { value, problems } = parseLoupeConfig(text);

        // Every good key as written (a group that held only a fault is there, empty).
        const expected: Doc = structuredClone(config);
        for (const g of ['search', 'limits', 'edits', 'tests']) if (doc[g] && !expected[g]) expected[g] = {};
        if (doc.permissions && !expected.permissions) expected.permissions = [];
        if (doc.search?.exclude && !expected.search.exclude) expected.search.exclude = [];
        expect(value).toEqual(expected);

        expect(problems).toHaveLength(faults.length);
        for (const f of faults) {
          const hits = problems.filter((p) => p.line !== null && f.at.test(text.slice(offsetOf(text, p))));
          expect(hits, `${f.at} in\n${text}\n${JSON.stringify(problems)}`).toHaveLength(1);
        }
        const said: ConfigProblem[] = [];
        const reporter = new ProblemReporter((p) => said.push(p));
        reporter.found(problems);
        reporter.found(parseLoupeConfig(text).problems);
        expect(said).toEqual(problems);
      }),
      { numRuns: 300 },
    );
  });

  it('reports a syntax error with its line and column, and then nothing applies', () => {
    expect(parseLoupeConfig('{\n  "search": {"exclude": ["dist"]},\n  "tests": {\n    "go": "go test",\n  }\n}')).toMatchObject({
      value: {},
      problems: [{ line: 5, column: 3, message: expect.stringContaining('trailing comma') }],
    });
  });

  it('an unknown key beside search.exclude leaves search.exclude in force', () => {
    const text = '{\n  "search": {"exclude": ["dist/**"]},\n  "colour": true,\n  "permissions": [{"kind": "bash", "pattern": "ls", "action": "allow"}, {"kind": "shell", "pattern": "rm *", "action": "deny"}]\n}';
    const { value, problems } = parseLoupeConfig(text);
    expect(value.search?.exclude).toEqual(['dist/**']);
    expect(value.permissions).toEqual([{ kind: 'bash', pattern: 'ls', action: 'allow' }]);
    expect(problems.map((p) => [p.line, p.column])).toEqual([
      [3, 3],
      [4, text.split('\n')[3].indexOf('"kind": "shell"') + 1],
    ]);
    expect(problems[0].message).toMatch(/^colour: unknown key "colour", ignored/);
    expect(problems[1].message).toMatch(/^permissions\[1\]\.kind: .*the whole permissions\[1\] is ignored/);
  });
});
