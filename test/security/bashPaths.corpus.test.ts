// Shell expansion and writes the analysis cannot see, through the real analyser and engine:
// every protected path (.loupe, .git config, hooks, info/exclude), every way out of the
// workspace (a symlink, a dangling symlink, `..`, an absolute path, `~`) and every denied
// secret, spelled with globs, brackets, braces, quotes, `~`, `$VAR`, `$(…)` and backticks,
// in every operand position, cd chains and wrappers. Only broad rules are in force (`echo *`,
// `cat *`, `cp *`, …): not one instance may be allowed.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { bashExpansions, globSpellings, runtimeSpellings } from './bashSpellings';
import { useBashWorkspace, type BashWorkspace } from './bashWorkspace';

const workspace = useBashWorkspace();
let ws: BashWorkspace;
beforeAll(() => {
  ws = workspace();
});

/** Where a write lands: as written in the corpus, and as bash prints it once expanded. */
interface Target {
  spell: string;
  /** bash's expansion of the literal spelling (relative to the workspace root). */
  expect: string;
}

function writeTargets(): Target[] {
  const rel = ['.loupe/config.json', '.git/config', '.git/hooks/pre-commit', '.git/info/exclude', 'outdir/file', 'outdir/nested/new', 'dangling', 'gitlink/config', 'homelink/.bashrc'];
  const outsideRel = `../${path.basename(ws.outside)}/file`;
  return [...rel, outsideRel, `${ws.outside}/file`].map((t) => ({ spell: t, expect: t })).concat([{ spell: '~/.bashrc', expect: `${ws.home}/.bashrc` }]);
}

/** Commands that write to W (a shell word). */
const WRITE_POSITIONS = [
  'echo x > §',
  'echo x >> §',
  'echo x &> §',
  'echo x 2> §',
  'echo x >| §',
  'echo x >& §',
  'echo x 1>>§',
  'cat <<EOF > §\nx\nEOF',
  'cat <<-"EOF" >>§\n\tx\n\tEOF',
  'printf x | tee §',
  'tee -a § < src/a.ts',
  'cp src/a.ts §',
  'cp -f -- src/a.ts §',
  'mv src/a.ts §',
  'dd if=src/a.ts of=§',
  'touch §',
  'truncate -s 0 §',
  'ln -sf /bin/sh §',
  'install src/a.ts §',
  'sort -o § src/a.ts',
  'sort src/a.ts --output=§',
  'uniq src/a.ts §',
  'chmod 777 §',
  'rm -f §',
  'find src -fprint §',
  'curl -o § http://127.0.0.1:9/',
  'wget -O § http://127.0.0.1:9/',
  'xxd src/a.ts §',
  'echo src/a.ts | xargs -I{} cp {} §',
  'cp 2>/dev/null src/a.ts §',
  'tee >/dev/null §',
  'cp <<EOF >/dev/null src/a.ts §\nx\nEOF',
];

/** Commands whose write target their own language or input decides (§ is spelled inside it). */
const LANGUAGE_WRITES = [
  "sed -n 'w §' src/a.ts",
  "sed 's/a/b/w §' src/a.ts",
  "sed -e '1!G' -e 'W §' src/a.ts",
  'awk \'{print > "§"}\' src/a.ts',
  'awk \'{print $0 >> "§"}\' src/a.ts',
  'perl -e \'open F, ">§"\'',
  'python3 -c \'open("§", "w")\'',
  'node -e \'require("fs").writeFileSync("§", "")\'',
  'echo § | xargs touch',
  'echo § | xargs -n1 cp src/a.ts',
  'find . -path ./§ -delete',
  'tar -xf src/x.tar',
  'tar xf src/x.tar §',
  'unzip -o src/x.zip',
  'cp -r src/. .',
  'cp -a sub/. ./',
  'mv sub/dir .',
  'rsync -a src/ .',
  'patch -p1 < src/x.diff',
  'git config core.fsmonitor "touch /tmp/pwned"',
  'git -c core.pager="sh -c id" log',
  'rm -rf .',
  'ln -s . up && echo x > up/§',
  'ln -sfn "$PWD" up; cp src/a.ts up/§',
  'mkdir -p a && ln -s .. a/up && echo x >> a/up/§',
  'rm 2>/dev/null -rf .',
  "bash -O dotglob -c 'echo x > §'",
  "bash +O nullglob -c 'echo x > §'",
  "bash -o pipefail -c 'echo x > §'",
  "python3 <<'EOF'\nopen('§', 'w')\nEOF",
  "node - <<'EOF'\nrequire('fs').writeFileSync('§', '')\nEOF",
  "bash <<'EOF'\necho x > §\nEOF",
  "echo 'echo x > §' | sh -s",
  'cd .git && echo x > /proc/self/cwd/config',
  'git init --template=src .',
  'git remote add origin "ext::sh -c touch% /tmp/pwned"',
  'stdbuf -oL tee § < src/a.ts',
  'setsid cp src/a.ts §',
  'prettier --write §',
  'ln src/a.ts §',
  "sqlite3 src/x.db '.output §' 'select 1;'",
  "yq -i '.a = 1' §",
  'convert src/a.ts §',
  'git config user.name x',
];

const READ_TARGETS = ['.env', 'src/.env', 'secrets/prod.key'];
const READ_POSITIONS = [
  'cat §',
  'cat < §',
  'head -n1 §',
  'tail -c 10 §',
  'grep x §',
  'grep -e x §',
  'grep -ie x -- §',
  'grep -rn x §',
  'rg x §',
  'sed -n p §',
  'sed -ne p §',
  'awk 1 §',
  'base64 §',
  'xxd §',
  'od -c §',
  'strings §',
  'wc §',
  'sort §',
  'cut -c1- §',
  'diff src/a.ts §',
  'cp § src/leak',
  'mv § src/leak',
  'tar -cf src/x.tar §',
  'uniq §',
  'dd if=§',
  'curl -T § http://127.0.0.1:9/',
  'cat >/dev/null §',
  'xargs -a § echo',
  'vim -es +%p +q §',
  'echo "$(< §)"',
  'ln § src/leak',
  'curl -d @§ http://127.0.0.1:9/',
  'curl -F f=@§ http://127.0.0.1:9/',
  'wget --post-file=§ http://127.0.0.1:9/',
];
/** Programs the analysis knows nothing of: a secret named as written (or globbed) asks; one built at run time is theirs to open anyway. */
const UNKNOWN_PROGRAM_READS = ['python3 src/show.py §', 'node src/show.js --file §', 'git add §', 'jq . §'];
const READ_ALL = ["bash -O dotglob -c 'cat *'", 'shopt -s dotglob; cat *', 'GLOBIGNORE=x; cat *', 'grep -r SECRET .', 'grep -R SECRET', 'rg SECRET', 'cat .*', 'cat src/.*', 'tar -czf /dev/null .', 'cp -r . ../elsewhere', 'grep -d recurse x .'];

/** Shapes a command appears in: every part must be judged wherever it stands. */
const WRAPPERS = [
  (c: string) => c,
  (c: string) => (c.includes("'") ? `bash -c "${c.replace(/["$`\\]/g, '\\$&')}"` : `bash -c '${c}'`),
  (c: string) => `(${c}\n)`,
  (c: string) => `true && ${c}`,
  (c: string) => `{ ${c}\n}`,
  (c: string) => `ls | ${c}`,
  (c: string) => `if true; then ${c}\nfi`,
  (c: string) => `for i in 1; do ${c}\ndone`,
  (c: string) => `timeout 5 ${c}`,
  (c: string) => `env FOO=1 ${c}`,
  (c: string) => `echo start; ${c}; echo done`,
];

const put = (template: string, word: string) => template.split('§').join(word);

/** The text glued before the slot in its word (`of=`, `--output=`), redirect operators aside. */
const prefixOf = (template: string) => (/(\S*)§/.exec(template)?.[1] ?? '').replace(/^[0-9]*[<>&|]+/, '');

/**
 * Spellings that real bash turns into the target when glued after `prefix` (`of=.loup?` is not
 * expanded, `.loup?` is), plus the run-time forms, which are kept unconditionally.
 */
function spellingsOf(targets: Target[], prefixes: string[]): Map<string, string[]> {
  const jobs = targets.flatMap((t) => prefixes.flatMap((p) => globSpellings(t.spell).map((w) => ({ t, p, w }))));
  const expanded = bashExpansions(
    jobs.map((j) => j.p + j.w),
    ws.root,
    ws.home,
  );
  const out = new Map<string, string[]>();
  jobs.forEach((j, i) => {
    const key = `${j.t.spell}\0${j.p}`;
    if (!out.has(key)) out.set(key, runtimeSpellings(j.t.spell).map((r) => r));
    if (expanded[i]?.includes(j.p + j.t.expect)) out.get(key)!.push(j.w);
  });
  return out;
}

/** cd chains that reach a target's folder before writing its last name. */
function cdChains(t: Target): string[] {
  const slash = t.spell.lastIndexOf('/');
  if (slash <= 0) return [];
  const name = t.spell.slice(slash + 1);
  const dir: Target = { spell: t.spell.slice(0, slash), expect: t.expect.slice(0, t.expect.lastIndexOf('/')) };
  const dirSpellings = spellingsOf([dir], ['']).get(`${dir.spell}\0`)!;
  return dirSpellings.flatMap((d) => [
    `cd ${d} && echo x > ${name}`,
    `cd src && cd ../${d} && echo x >> ${name}`,
    `pushd ${d} >/dev/null; printf x | tee ${name}`,
    `cd sub; cd ../..; cd ${path.basename(ws.root)}/${d}; echo x > ${name}`,
    `(cd ${d}; cp -f ../src/a.ts ${name} 2>/dev/null || cp src/a.ts ${name})`,
    `for d in 1 2; do echo x > ${name}; cd ${d}; done`,
  ]);
}

interface Instance {
  command: string;
  group: string;
}

let corpus: Instance[] = [];

/**
 * Every target meets every position and every spelling; each spelling meets a fifth of the
 * positions (rotating), and the wrappers rotate, to keep the corpus in seconds.
 */
function expand(targets: Target[], positions: string[], group: string, wrap: (c: string) => string): Instance[] {
  const prefixes = [...new Set(positions.map(prefixOf))];
  const spelled = spellingsOf(targets, prefixes);
  const out: Instance[] = [];
  for (const t of targets) {
    positions.forEach((p, pi) => {
      spelled.get(`${t.spell}\0${prefixOf(p)}`)!.forEach((w, wi) => {
        if (wi === 0 || (pi + wi) % 5 === 0) out.push({ command: wrap(put(p, w)), group: `${group} ${t.spell}` });
      });
    });
  }
  return out;
}

function buildCorpus(): Instance[] {
  let n = 0;
  const wrap = (c: string) => WRAPPERS[n++ % WRAPPERS.length](c);
  const writes = writeTargets();
  const out = expand(writes, WRITE_POSITIONS, 'write', wrap);
  for (const t of writes) {
    const literal = t.spell.replace(/^~/, ws.home);
    for (const p of LANGUAGE_WRITES) out.push({ command: wrap(put(p, literal)), group: 'language writes' });
    for (const c of cdChains(t)) out.push({ command: wrap(c), group: `cd chain ${t.spell}` });
  }
  const reads = READ_TARGETS.map((r) => ({ spell: r, expect: r }));
  out.push(...expand(reads, READ_POSITIONS, 'read', wrap));
  out.push(...expand(reads, UNKNOWN_PROGRAM_READS, 'unknown program reads', wrap).filter((i) => !/\$|`/.test(i.command)));
  for (const c of READ_ALL) for (const w of WRAPPERS) out.push({ command: w(c), group: 'recursive reads' });
  return out;
}

describe('no spelling of a protected, outside or denied path is allowed by a broad rule', () => {
  beforeAll(() => {
    corpus = buildCorpus();
  });

  it('covers thousands of instances in every group', () => {
    expect(corpus.length).toBeGreaterThan(3000);
    const groups = new Set(corpus.map((i) => i.group));
    expect(groups.size).toBeGreaterThan(20);
  });

  it('asks (or denies) for every instance', async () => {
    const allowed: string[] = [];
    for (const { command, group } of corpus) {
      const d = await ws.engine.decide({ kind: 'bash', command, cwd: ws.root });
      if (d.action === 'allow') allowed.push(`${group}: ${command}`);
    }
    // CORPUS_DUMP=file writes every allowed instance there (to count them on another version).
    if (process.env.CORPUS_DUMP) writeFileSync(process.env.CORPUS_DUMP, JSON.stringify({ total: corpus.length, allowed }, null, 1));
    expect(allowed.slice(0, 20), `${allowed.length} of ${corpus.length} allowed`).toEqual([]);
  }, 600_000);
});

describe('random compositions (fast-check)', () => {
  const benign = ['echo ok', 'cat src/a.ts', 'cat src/*', 'grep -n a src/* sub/*', 'head -1 s?c/*.ts', 'ls -la src', 'grep -n a src/a.ts', 'echo x > src/out.txt', 'head -1 src/a.ts | wc -l', 'cd sub && ls', 'touch src/new.txt'];
  // A word glued after `of=` or `--output=` is not globbed by bash, so those positions get
  // only spellings that still reach the target there.
  const writeWords = ['.loup?/config.json', '.gi[t]/config', '.git/hook*/pre-commit', 'outdi?/file', 'dangl*', '{.git,x}/info/exclude', '~/.bashrc', '"$F"', '$(echo .git)/config'];
  const gluedWords = ['.loupe/config.json', '.git/hooks/pre-commit', 'outdir/file', 'dangling', '"$F"', '$(echo .git)/config', '`echo .git`/config'];
  const readWords = ['.en?', '.e*', 'src/.en[v]', 'secr*/prod.key', '{.env,x}', '$(echo .env)'];
  const hostile = fc.oneof(
    fc.constantFrom(...WRITE_POSITIONS).chain((p) => fc.constantFrom(...(prefixOf(p) ? gluedWords : writeWords)).map((w) => put(p, w))),
    fc.constantFrom(...READ_POSITIONS).chain((p) => fc.constantFrom(...(prefixOf(p) ? ['.env', 'src/.env', '"$F"'] : readWords)).map((w) => put(p, w))),
    fc.constantFrom(...LANGUAGE_WRITES).map((p) => put(p, '.git/config')),
  );
  const join = fc.constantFrom(' && ', '; ', ' || ', ' | ', '\n');
  const shape = (inner: fc.Arbitrary<string>) =>
    fc.tuple(inner, fc.constantFrom('plain', 'subshell', 'group', 'bash', 'if', 'redirect')).map(([c, s]) => {
      if (s === 'subshell') return `(${c}\n)`;
      if (s === 'group') return `{ ${c}\n}`;
      if (s === 'bash') return WRAPPERS[1](c);
      if (s === 'if') return `if true; then ${c}\nfi`;
      if (s === 'redirect') return `{ ${c}\n} 2>/dev/null`;
      return c;
    });

  it('a hostile part anywhere in a composition is never allowed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...benign), { maxLength: 3 }), shape(hostile), fc.array(fc.constantFrom(...benign), { maxLength: 3 }), join, async (before, bad, after, sep) => {
        const command = [...before, bad, ...after].join(sep);
        const d = await ws.engine.decide({ kind: 'bash', command, cwd: ws.root });
        expect(d.action, command).not.toBe('allow');
      }),
      { numRuns: 400, seed: 10 },
    );
  }, 600_000);

  it('benign compositions under the same rules stay allowed (the analysis is not just asking for everything)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(shape(fc.constantFrom(...benign)), { minLength: 1, maxLength: 4 }), join, async (parts, sep) => {
        const command = parts.join(sep);
        const d = await ws.engine.decide({ kind: 'bash', command, cwd: ws.root });
        expect(d.action, `${command}\n${d.reason}`).toBe('allow');
      }),
      { numRuns: 200, seed: 11 },
    );
  }, 600_000);
});
