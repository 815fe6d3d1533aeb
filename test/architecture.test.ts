// The layers of docs/architecture.md, enforced: a wrong import fails here before it ships.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WORKSPACE_SERVICES, constructionsIn } from './support/compositionScan';

const ROOT = path.resolve(__dirname, '..');
const SRC = path.join(ROOT, 'src');
const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const abs = path.join(dir, name);
    if (statSync(abs).isDirectory()) return sourceFiles(abs);
    return /\.(ts|tsx|mts|cts|js|mjs)$/.test(name) ? [abs] : [];
  });
}

const IMPORT_RE = /(?:^|[^.\w])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[^.\w])import\s*['"]([^'"]+)['"]|(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/gm;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...text.matchAll(IMPORT_RE)].map((m) => m[1] ?? m[2] ?? m[3]);
}

function resolveLocal(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec.replace(/\?.*$/, ''));
  for (const cand of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')]) {
    try {
      if (statSync(cand).isFile()) return cand;
    } catch {}
  }
  return base;
}

const rel = (f: string) => path.relative(SRC, f).split(path.sep).join('/');
const files = sourceFiles(SRC).filter((f) => !/\.test\.tsx?$/.test(f));
const isElectron = (spec: string) => spec === 'electron' || spec.startsWith('electron/');

function violations(filter: (file: string) => boolean, bad: (spec: string, target: string | null) => boolean): string[] {
  const out: string[] = [];
  for (const file of files.filter((f) => filter(rel(f)))) {
    for (const spec of importsOf(file)) {
      const target = resolveLocal(file, spec);
      if (bad(spec, target ? rel(target) : null)) out.push(`${rel(file)} imports ${spec}`);
    }
  }
  return out;
}

describe('layer boundaries', () => {
  it('finds the source tree (guards against a vacuous pass)', () => {
    expect(files.some((f) => rel(f).startsWith('renderer/'))).toBe(true);
    expect(files.some((f) => rel(f).startsWith('main/services/'))).toBe(true);
    expect(importsOf(path.join(SRC, 'main/host/host.ts'))).toContain('../workspace/compose');
  });

  it('the renderer never imports node, electron, main or preload code', () => {
    expect(
      violations(
        (f) => f.startsWith('renderer/'),
        (spec, target) => NODE_BUILTINS.has(spec) || isElectron(spec) || !!target?.match(/^(main|preload)\//),
      ),
    ).toEqual([]);
  });

  it('only src/main/electron (and the preload bridge) import electron', () => {
    expect(violations((f) => !f.startsWith('main/electron/') && !f.startsWith('preload/'), (spec) => isElectron(spec))).toEqual([]);
  });

  it('shared holds types and the contract only: no node, no electron, nothing outside shared', () => {
    expect(
      violations(
        (f) => f.startsWith('shared/'),
        (spec, target) => NODE_BUILTINS.has(spec) || isElectron(spec) || (target !== null && !target.startsWith('shared/')) || (target === null && !spec.startsWith('.')),
      ),
    ).toEqual([]);
  });

  it('services know nothing of tools, the agent, the host or transports', () => {
    expect(
      violations(
        (f) => f.startsWith('main/services/'),
        (spec, target) => isElectron(spec) || !!target?.match(/^(main\/(agent|host|cli|electron|workspace)|renderer|preload)\//) || spec === 'ws',
      ),
    ).toEqual([]);
  });

  it('nothing the CLI reaches (serve, run, mcp) imports electron, even indirectly', () => {
    const seen = new Set<string>();
    const stack = [path.join(SRC, 'main/cli/index.ts')];
    const reached: string[] = [];
    while (stack.length) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const spec of importsOf(file)) {
        if (isElectron(spec)) reached.push(`${rel(file)} imports electron`);
        const target = resolveLocal(file, spec);
        if (target && /\.(ts|tsx)$/.test(target)) stack.push(target);
      }
    }
    expect(seen.size).toBeGreaterThan(5);
    expect([...seen].map(rel).filter((f) => f.startsWith('main/electron/'))).toEqual([]);
    expect(reached).toEqual([]);
  });
});

describe('one owner per workspace', () => {
  const ROOT_FILE = 'main/workspace/compose.ts';
  // A class may make a view of itself in its own file (the gate tagged for one call shares the
  // root's engine and queue); any other file constructing one is a second owner.
  const ownClass = (text: string, hit: string) => new RegExp(`\\bclass\\s+${hit.split(' ')[0]}\\b`).test(text);
  const offenders = () =>
    files.flatMap((f) => {
      if (rel(f) === ROOT_FILE) return [];
      const text = readFileSync(f, 'utf8');
      return constructionsIn(text)
        .filter((hit) => !ownClass(text, hit))
        .map((hit) => `${rel(f)}: ${hit}`);
    });

  it('only the composition root constructs the log, the gate, the config readers and the session store', () => {
    expect(offenders()).toEqual([]);
    expect(constructionsIn(readFileSync(path.join(SRC, ROOT_FILE), 'utf8')).length).toBeGreaterThanOrEqual(WORKSPACE_SERVICES.length);
  });

  it('catches a planted construction, however the class is reached', () => {
    const ident = fc.stringMatching(/^[A-Za-z_$][\w$]{0,8}$/).filter((s) => !WORKSPACE_SERVICES.includes(s as never) && !/^(new|extends|import|as|from|type)$/.test(s));
    const space = fc.constantFrom(' ', '  ', '\n', '\t', ' \n  ');
    const planted = fc.tuple(fc.constantFrom(...WORKSPACE_SERVICES), ident, space, fc.integer({ min: 0, max: 5 })).map(([cls, alias, ws, form]) => {
      const mod = `'../services/x/${cls}'`;
      const text = [
        `import { ${cls} } from ${mod};\nconst x = new${ws}${cls}(root);`,
        `import { ${cls} as ${alias} } from ${mod};\nconst x = new${ws}${alias}(root, {});`,
        `import * as ${alias} from ${mod};\nexport const x = () => new${ws}${alias}.${cls}(root);`,
        `import { ${cls} } from ${mod};\nclass Mine extends${ws}${cls} {}`,
        `import { type ${cls} as ${alias} } from ${mod};\nconst x = Reflect.construct(${ws}${alias}, [root]);`,
        `const log = new ${cls}(root); // planted where it does not belong`,
      ][form];
      return { cls, text };
    });
    fc.assert(
      fc.property(planted, ({ cls, text }) => {
        expect(constructionsIn(text).map((h) => h.split(' ')[0])).toContain(cls);
      }),
      { numRuns: 300 },
    );
    // The tree scan itself reports a file planted with one.
    expect(constructionsIn("import { ModificationLog } from '../services/modlog/modificationLog';\nexport const log = new ModificationLog('/w');")).toEqual(['ModificationLog (new ModificationLog)']);
  });

  it('does not cry wolf: comments, types and longer names are not constructions', () => {
    const benign = [
      '// the review pane used to build its own new ModificationLog(root)',
      '/* new PermissionGate(engine, queue) */',
      'let log: ModificationLog | null = null;',
      'const x = new ModificationLogView(root);',
      'const gate = services.permissions as PermissionGate;',
    ];
    for (const text of benign) expect(constructionsIn(text), text).toEqual([]);
  });

  it('keeps no workspace state at module level: module-wide maps are only these, none per folder', () => {
    // Each is keyed by something other than an open folder and holds no folder's services.
    const allowed = new Set([
      'main/services/permissions/patterns.ts: cache', // compiled globs, keyed by pattern text
      'main/services/permissions/commandPaths.ts: SPECS', // constant table of command specs
      'main/services/web/addressClass.ts: lists', // constant address block lists
      'main/agent/llm/profile.ts: profiles', // what each model endpoint taught, keyed by base URL
      'main/services/files/safeOpen.ts: realRoots', // realpath of a root, a pure function cached
      'main/agent/tools/registry.ts: published', // tools' published output schemas, keyed by a module's constant zod schema
      'main/agent/tools/schemaCheck.ts: compiled', // compiled JSON Schema validators, keyed by the schema object
    ]);
    const found = files
      .filter((f) => rel(f).startsWith('main/'))
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/^(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]+)?=\s*new\s+(?:Weak)?Map\b/gm)].map((m) => `${rel(f)}: ${m[1]}`));
    expect(found.filter((f) => !allowed.has(f))).toEqual([]);
  });
});

describe('the repository explains itself', () => {
  // A clone has no documents beside it: a comment that cites one sends a reader nowhere.
  const CITATION = /DESIGN\s*§|DESIGN\.md|STYLE\.md\b|\bseeds?\s*0\d\d\b|\bseed R\d|shared\/(?:seeds|edit-cases|hooks)\b/i;
  const roots = ['src', 'test', 'e2e', 'scripts', 'bench', 'bin'].map((d) => path.join(ROOT, d));
  const self = path.resolve(__filename);

  it('no file in the tree cites a document outside the repository', () => {
    const hits = roots
      .flatMap((dir) => sourceFiles(dir))
      .filter((f) => path.resolve(f) !== self)
      .flatMap((f) =>
        readFileSync(f, 'utf8')
          .split('\n')
          .flatMap((line, i) => (CITATION.test(line) ? [`${path.relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(hits).toEqual([]);
  });

  it('catches a planted citation', () => {
    expect(CITATION.test('// The rule model of DESIGN §3.')).toBe(true);
    expect(CITATION.test('// grep (seed 002): content and counts')).toBe(true);
    expect(CITATION.test('// Seed 001, "Testing Considerations"')).toBe(true);
    expect(CITATION.test(`const cases = '../${'shared'}/edit-cases';`)).toBe(true);
    expect(CITATION.test('// The rule model (docs/architecture.md, permissions).')).toBe(false);
  });
});
