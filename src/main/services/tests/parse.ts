// Test runner output → counts and failing test names. Each parser recognises its runner by
// the summary it prints (the last one printed wins when a command ran several), and the
// first parser that recognises the text is used.
import { stripAnsi } from '../shell/ansi';

export interface ParsedTests {
  framework: 'vitest' | 'jest' | 'mocha' | 'pytest' | 'go' | 'node:test';
  passed: number;
  failed: number;
  skipped: number;
  /** Names of the failing tests, as the runner prints them (deduplicated, in order). */
  failing: string[];
}

type Parser = (text: string, lines: string[]) => ParsedTests | null;

const num = (re: RegExp, s: string): number => Number(re.exec(s)?.[1] ?? 0);
const unique = (xs: string[]): string[] => [...new Set(xs.map((x) => x.trim()).filter(Boolean))];
const lastMatch = (lines: string[], re: RegExp): string | undefined => [...lines].reverse().find((l) => re.test(l));

/** vitest: "      Tests  1 failed | 3 passed | 1 skipped (5)"; failures as " FAIL  file > suite > name". */
const vitest: Parser = (_text, lines) => {
  const summary = lastMatch(lines, /^\s*Tests\s+.*\(\d+\)\s*$/);
  if (!summary || !lines.some((l) => /^\s*Test Files\s+/.test(l))) return null;
  return {
    framework: 'vitest',
    passed: num(/(\d+) passed/, summary),
    failed: num(/(\d+) failed/, summary),
    skipped: num(/(\d+) skipped/, summary) + num(/(\d+) todo/, summary),
    failing: unique(lines.map((l) => /^\s*FAIL\s+(.+? > .+?)(?:\s+\[.*\])?$/.exec(l)?.[1] ?? '')),
  };
};

/** jest: "Tests:       1 failed, 1 skipped, 3 passed, 5 total"; failures as "  ● Suite › name". */
const jest: Parser = (_text, lines) => {
  const summary = lastMatch(lines, /^Tests:\s+.*\d+ total/);
  if (!summary) return null;
  return {
    framework: 'jest',
    passed: num(/(\d+) passed/, summary),
    failed: num(/(\d+) failed/, summary),
    skipped: num(/(\d+) skipped/, summary) + num(/(\d+) todo/, summary),
    failing: unique(lines.map((l) => /^\s+● (.+›.+|[^●]+)$/.exec(l)?.[1] ?? '').filter((n) => !/^Test suite failed to run/.test(n))),
  };
};

/** mocha (spec): "  3 passing (12ms)", "  1 failing", "  2 pending"; failures as "  1) suite\n       name:". */
const mocha: Parser = (_text, lines) => {
  const at = lines.findLastIndex((l) => /^\s+\d+ passing \(/.test(l));
  if (at === -1) return null;
  const tail = lines.slice(at, at + 3).join('\n');
  const failing: string[] = [];
  for (let i = at; i < lines.length; i++) {
    const head = /^\s+(\d+)\) (.+)$/.exec(lines[i]);
    if (!head) continue;
    // The title path is printed one part per line, the last one ending in ':'.
    const parts = [head[2]];
    while (!parts[parts.length - 1].endsWith(':') && i + 1 < lines.length && lines[i + 1].trim()) parts.push(lines[++i].trim());
    failing.push(parts.join(' ').replace(/:$/, ''));
  }
  return { framework: 'mocha', passed: num(/(\d+) passing/, tail), failed: num(/(\d+) failing/, tail), skipped: num(/(\d+) pending/, tail), failing: unique(failing) };
};

/** pytest: "==== 1 failed, 2 passed, 1 skipped in 0.12s ====" (or bare with -q); "FAILED path::name - why". */
const pytest: Parser = (_text, lines) => {
  const summary = lastMatch(lines, /^=*\s*(?:\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected)(?:, )?)+.* in [\d.]+s/);
  if (!summary) return null;
  return {
    framework: 'pytest',
    passed: num(/(\d+) passed/, summary),
    failed: num(/(\d+) failed/, summary) + num(/(\d+) errors?/, summary),
    skipped: num(/(\d+) skipped/, summary) + num(/(\d+) xfailed/, summary),
    failing: unique(lines.map((l) => /^(?:FAILED|ERROR) (\S+)/.exec(l)?.[1] ?? '')),
  };
};

/** go test -v: "--- PASS: TestX (0.00s)", "--- FAIL: …", "--- SKIP: …" (subtests indented); "ok"/"FAIL" per package. */
const goTest: Parser = (_text, lines) => {
  const results = lines.map((l) => /^\s*--- (PASS|FAIL|SKIP): (\S+)/.exec(l)).filter((m) => m !== null);
  const packages = lines.filter((l) => /^(ok|FAIL|---)\s+\S+\s+[\d.]+s|^ok\s+\S+|^FAIL\s+\S+/.test(l) || /^\?\s+\S+\s+\[no test files\]/.test(l));
  if (!results.length && !packages.length) return null;
  const count = (kind: string) => results.filter((m) => m[1] === kind).length;
  return { framework: 'go', passed: count('PASS'), failed: count('FAIL'), skipped: count('SKIP'), failing: unique(results.filter((m) => m[1] === 'FAIL').map((m) => m[2])) };
};

/** node:test — TAP ("# pass 2", "not ok 3 - name") or spec ("ℹ pass 2", "✖ name (1ms)"). */
const nodeTest: Parser = (_text, lines) => {
  const tap = lines.some((l) => /^# pass \d+/.test(l));
  const spec = lines.some((l) => /^ℹ pass \d+/.test(l));
  if (!tap && !spec) return null;
  const mark = tap ? '#' : 'ℹ';
  const field = (name: string) => Number(lastMatch(lines, new RegExp(`^${mark} ${name} \\d+`))?.split(' ')[2] ?? 0);
  let failing: string[];
  if (tap) failing = lines.map((l) => /^\s*not ok \d+ - (.+?)(?: # .*)?$/.exec(l)?.[1] ?? '');
  else {
    // The spec reporter repeats failures under "✖ failing tests:"; the first listing suffices.
    const end = lines.findIndex((l) => /^ℹ tests \d+/.test(l));
    failing = lines.slice(0, end === -1 ? undefined : end).map((l) => /^\s*✖ (.+?) \([\d.]+m?s\)/.exec(l)?.[1] ?? '');
  }
  return {
    framework: 'node:test',
    passed: field('pass'),
    failed: field('fail') + field('cancelled'),
    skipped: field('skipped') + field('todo'),
    failing: unique(failing),
  };
};

const PARSERS: Parser[] = [vitest, jest, mocha, pytest, nodeTest, goTest];

export function parseTestOutput(raw: string): ParsedTests | null {
  const text = stripAnsi(raw);
  const lines = text.split('\n');
  for (const parse of PARSERS) {
    const r = parse(text, lines);
    if (r) return r;
  }
  return null;
}
