// Skills and commands at scale: a repository with 500 custom commands (Claude Code, VS Code,
// Gemini CLI and OpenCode files) and 200 skills whose descriptions are the specification's
// 1,024 characters, beside 2,000 source files, through the real `loupe serve` and Chromium.
// - slash.commands_list: `commands.list` over the WebSocket (what the picker asks for), p50/p95,
//   and the server's CPU per call (unlike the wall clock, not inflated by a busy machine).
// - slash.picker_open / mentions.picker_open: a key in the composer (`/`, `@`) to the picker
//   drawn with its entries, in Chromium, timed in the page. Goal: under 50 ms, with 500 commands.
//   `first`: the first open, 2 s after the chat opened (the composer has asked for the list by then).
// - system_prompt.skills_200: the system prompt `loupe run --json` sends with the 200 skills in
//   reach, and its skills section, which must stay within its 12,000-character budget.
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright';
import { CHROMIUM, cpuMsOf, generateTree, percentile, readingModel, report, runLoupeJson, startServe, tempDir, wsClient } from './lib.mjs';

const RUNS = Number(process.env.LOUPE_BENCH_RUNS ?? 30);
const SKILLS = 200;
const SKILLS_BUDGET = 12_000;

const root = await tempDir('loupe-bench-slash-');
const home = await tempDir('loupe-bench-slash-home-');
const write = async (rel, text) => {
  await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
  await writeFile(path.join(root, rel), text);
};
const words = (n, seed) => Array.from({ length: n }, (_, i) => ['review', 'the', 'parser', 'tokens', 'release', 'notes', 'for', 'api'][(i + seed) % 8]).join(' ');
for (let i = 0; i < 200; i++) await write(`.claude/commands/${i % 4 ? '' : `team${i % 10}/`}cmd-${i}.md`, `---\ndescription: ${words(12, i)}\nargument-hint: <file> [focus]\nallowed-tools: Bash(git diff:*)\n---\nReview $0 with $ARGUMENTS.\n`);
for (let i = 0; i < 100; i++) await write(`.github/prompts/prompt-${i}.prompt.md`, `---\ndescription: '${words(10, i)}'\n---\nMake \${input:name:What to name it} in \${workspaceFolderBasename}.\n`);
for (let i = 0; i < 100; i++) await write(`.gemini/commands/g${i % 5}/gem-${i}.toml`, `description = "${words(8, i)}"\nprompt = """\nSummarise {{args}}.\n"""\n`);
for (let i = 0; i < 100; i++) await write(`.opencode/command/oc-${i}.md`, `---\ndescription: ${words(9, i)}\n---\nReview $1 then $2\n`);
for (let i = 0; i < SKILLS; i++) {
  const description = `Skill ${i}: ${words(400, i)}`.slice(0, 1024);
  await write(`.claude/skills/skill-${i}/SKILL.md`, `---\nname: skill-${i}\ndescription: ${description}\n---\nBody of skill ${i}.\n`);
}
await generateTree(path.join(root, 'src'), 2_000);
execFileSync('git', ['init', '-q'], { cwd: root });

const s = await startServe(root, { LOUPE_HOME: home });
const cpuMs = cpuMsOf(s.proc.pid);
const c = await wsClient(s.port, s.token);
let browser;
try {
  const times = [];
  let cpu = 0;
  let count = 0;
  for (let i = 0; i < RUNS + 3; i++) {
    const before = cpuMs();
    const t = performance.now();
    const res = await c.request('commands.list', undefined);
    if (!res.r) throw new Error(`commands.list failed: ${JSON.stringify(res)}`);
    count = res.r.commands.length;
    if (i >= 3) {
      times.push(performance.now() - t);
      cpu += cpuMs() - before;
    }
  }
  if (count !== 500 + SKILLS + 5) throw new Error(`commands.list gave ${count} entries, not ${500 + SKILLS + 5}`);
  report('slash.commands_list.p50', percentile(times, 50), 'ms', { commands: 500, skills: SKILLS, runs: RUNS, load: os.loadavg()[0] });
  report('slash.commands_list.p95', percentile(times, 95), 'ms', { commands: 500, skills: SKILLS, runs: RUNS });
  report('slash.commands_list.server_cpu.mean', cpu / RUNS, 'ms', { commands: 500, skills: SKILLS, runs: RUNS });

  browser = await chromium.launch({ ...CHROMIUM, headless: true });
  const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  await page.goto(s.url);
  await page.getByTestId('file-tree').waitFor();
  await page.getByTestId('agent-tab').click();
  // The composer asks for the list once the folder is open; a person types `/` seconds later, not at once.
  await page.waitForTimeout(2_000);
  const input = page.getByTestId('chat-input');
  // A key to the picker drawn with entries, timed in the page (no round trip of the driver in it).
  const open = (key, item) =>
    page.evaluate(
      ({ key, item }) =>
        new Promise((resolve) => {
          /* global document, requestAnimationFrame */
          const el = document.querySelector('[data-testid="chat-input"]');
          const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), 'value').set;
          const t0 = performance.now();
          setter.call(el, key);
          el.setSelectionRange(1, 1);
          el.dispatchEvent(new Event('input', { bubbles: true }));
          const check = () => (document.querySelector(`[data-testid="${item}"]`) ? resolve(performance.now() - t0) : requestAnimationFrame(check));
          check();
        }),
      { key, item },
    );
  for (const [name, key, item] of [
    ['slash', '/', 'slash-item'],
    ['mentions', '@', 'mention-item'],
  ]) {
    const samples = [];
    let first = 0;
    for (let i = 0; i < RUNS + 1; i++) {
      await input.fill('');
      await page.waitForSelector(`[data-testid="${item}"]`, { state: 'detached' });
      const ms = await open(key, item);
      if (i === 0) first = ms;
      else samples.push(ms);
    }
    report(`${name}.picker_open.first`, first, 'ms', { commands: 500, skills: SKILLS });
    report(`${name}.picker_open.p50`, percentile(samples, 50), 'ms', { commands: 500, skills: SKILLS, runs: RUNS, goal: 50, load: os.loadavg()[0] });
    report(`${name}.picker_open.p95`, percentile(samples, 95), 'ms', { commands: 500, skills: SKILLS, runs: RUNS });
  }

  // What the model is told with 200 skills in reach: the skills section within its budget.
  const model = await readingModel(0, () => '');
  try {
    await runLoupeJson(root, model.baseURL, 'hello', 5, { LOUPE_HOME: home, HOME: home, LOUPE_KEYCHAIN: 'off' }, ['--deny']);
    const system = model.systems[0];
    const section = system.slice(system.indexOf('# Skills'), system.indexOf('\n\n#', system.indexOf('# Skills') + 1));
    const listed = (section.match(/^- skill-\d+/gm) ?? []).length;
    if (section.length > SKILLS_BUDGET) throw new Error(`the skills section is ${section.length} characters, over its ${SKILLS_BUDGET}`);
    if (listed !== SKILLS) throw new Error(`the skills section lists ${listed} of ${SKILLS} skills`);
    report('system_prompt.skills_200.section_chars', section.length, 'chars', { skills: SKILLS, budget: SKILLS_BUDGET, listed });
    report('system_prompt.skills_200.tokens', Math.ceil(system.length / 4), 'tokens', { chars: system.length });
  } finally {
    model.server.close();
  }
} finally {
  c.close();
  await browser?.close();
  s.proc.kill('SIGTERM');
  await rm(root, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
}
