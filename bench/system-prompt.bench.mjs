// What the agent is told, measured on what the model receives from `loupe run --json`:
// - system_prompt.tokens_without_instructions: a git repository with no instruction file, the
//   sandbox facts in (Loupe's estimate, 4 characters a token; `pessimistic` at 3.2). Limit 2,500.
// - system_prompt.tokens_with_every_form: the same with each form of instruction file present.
// - system_prompt.turn_overhead: what the loop adds per tool round trip (as loop.bench measures
//   it) when every turn re-reads the instruction files of a repository with every form and 20
//   nested folders, each with an AGENTS.md and a CLAUDE.md that the reads reach. Target: < 5 ms.
//   `_without_files`: the same tree and reads with no instruction file, for comparison. Both
//   outside git, whose status in every read_file result would swamp the difference.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { loopOverheads, percentile, readingModel, report, runLoupeJson, tempDir } from './lib.mjs';

const FOLDERS = 20;
const ROUND_TRIPS = 40;
const RUNS = 3;

async function repo(dir, files, git = true) {
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  if (git) execFileSync('git', ['init', '-q'], { cwd: dir });
}

const rules = (name) => `# ${name}\n\n${'- Keep the public API stable; add a test for every bug fixed.\n'.repeat(20)}`;
const EVERY_FORM = {
  'AGENTS.md': rules('AGENTS.md'),
  'CLAUDE.md': rules('CLAUDE.md'),
  '.github/copilot-instructions.md': rules('Copilot'),
  '.cursorrules': rules('Cursor (legacy)'),
  '.cursor/rules/style.mdc': `---\nalwaysApply: true\n---\n${rules('Style')}`,
  '.cursor/rules/ts.mdc': `---\nglobs: "*.ts"\n---\n${rules('TypeScript')}`,
  '.cursor/rules/db.mdc': '---\ndescription: Database migrations\n---\nbody\n',
};

const base = await tempDir('loupe-bench-prompt-');
const home = path.join(base, 'home');
await mkdir(home);
const env = { LOUPE_HOME: home, LOUPE_KEYCHAIN: 'off' };

async function promptOf(files) {
  const dir = path.join(base, `repo-${Math.random().toString(36).slice(2)}`);
  await repo(dir, { 'src/a.ts': 'export const a = 1;\n', ...files });
  const model = await readingModel(0, () => '');
  try {
    await runLoupeJson(dir, model.baseURL, 'hello', 5, env);
    return model.systems[0];
  } finally {
    model.server.close();
  }
}

const bare = await promptOf({});
report('system_prompt.tokens_without_instructions', Math.ceil(bare.length / 4), 'tokens', { chars: bare.length, pessimistic_tokens: Math.ceil(bare.length / 3.2), limit: 2500 });
const full = await promptOf(EVERY_FORM);
report('system_prompt.tokens_with_every_form', Math.ceil(full.length / 4), 'tokens', { chars: full.length });

// Every turn re-reads the files: the loop's overhead with many of them in reach, against the
// same tree without any (run in turns, so both see the machine's load alike).
async function overheadRepo(name, withFiles) {
  const dir = path.join(base, name);
  const files = {};
  for (let i = 0; i < FOLDERS; i++) {
    if (withFiles) {
      files[`packages/p${i}/AGENTS.md`] = rules(`p${i}`);
      files[`packages/p${i}/CLAUDE.md`] = rules(`p${i} claude`);
    }
    files[`packages/p${i}/src/index.ts`] = `export const v = ${i};\n`;
  }
  // Not a git repository: read_file's git status would swamp what is measured here.
  await repo(dir, { ...(withFiles ? EVERY_FORM : {}), ...files }, false);
  return dir;
}
const repos = { with: await overheadRepo('nested', true), without: await overheadRepo('control', false) };
const model = await readingModel(ROUND_TRIPS, (n) => `packages/p${n % FOLDERS}/src/index.ts`);
const samples = { with: [], without: [] };
for (let r = 0; r < RUNS; r++) {
  for (const kind of ['with', 'without']) {
    const events = await runLoupeJson(repos[kind], model.baseURL, 'read the packages', ROUND_TRIPS + 5, env);
    const finished = events.at(-1);
    if (finished.type !== 'request_finished' || finished.status !== 'done') throw new Error(`run ended ${JSON.stringify(finished)}`);
    samples[kind].push(...loopOverheads(events).slice(r === 0 ? 5 : 0));
  }
}
model.server.close();
report('system_prompt.turn_overhead.p50', percentile(samples.with, 50), 'ms', { samples: samples.with.length, instruction_files: 7 + 2 * FOLDERS, folders_touched: FOLDERS });
report('system_prompt.turn_overhead.p95', percentile(samples.with, 95), 'ms', { target_ms: 5 });
report('system_prompt.turn_overhead_without_files.p50', percentile(samples.without, 50), 'ms', { samples: samples.without.length });
report('system_prompt.turn_overhead_without_files.p95', percentile(samples.without, 95), 'ms');
await rm(base, { recursive: true, force: true });
