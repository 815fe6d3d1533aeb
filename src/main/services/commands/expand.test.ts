import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codexInputs, parseCommandFile, vscodeInputs } from './commandFile';
import { expandCommand, missingInputs, parseSlash, type ExpandInput, type Part } from './expand';
import type { CommandDef, Dialect } from './types';

const def = (dialect: Dialect, template: string, extra: Partial<CommandDef> = {}): Pick<CommandDef, 'dialect' | 'template' | 'argumentNames' | 'inputs'> => ({
  dialect,
  template,
  argumentNames: [],
  inputs: dialect === 'vscode' ? vscodeInputs(template) : dialect === 'codex' ? codexInputs(template) : [],
  ...extra,
});
const input = (args: string, more: Partial<ExpandInput> = {}): ExpandInput => ({ args, inputs: {}, typed: `/cmd ${args}`.trim(), root: '/work/app', sessionId: 'sess-1', ...more });
const text = (parts: Part[]) => parts.map((p) => (p.kind === 'text' ? p.text : p.kind === 'shell' ? `<sh:${p.command}>` : `<file:${p.path}>`)).join('');

describe('Claude Code: $ARGUMENTS whole, $N and $ARGUMENTS[N] from 0, shell-split', () => {
  it('numbers positions from 0 and keeps a missing one as written', () => {
    const e = expandCommand(def('claude', 'A=$0 B=$1 C=$ARGUMENTS[2] D=$3 all=$ARGUMENTS'), input('"my widget" React Vue'));
    expect(text(e.parts)).toBe('A=my widget B=React C=Vue D=$3 all="my widget" React Vue');
  });
  it('appends ARGUMENTS when the text uses none, and nothing when no argument was given', () => {
    expect(text(expandCommand(def('claude', 'Summarise the TODOs.'), input('in src only')).parts)).toBe('Summarise the TODOs.\n\nARGUMENTS: in src only');
    expect(text(expandCommand(def('claude', 'Summarise the TODOs.'), input('')).parts)).toBe('Summarise the TODOs.');
  });
  it('named arguments, the skill folder and the session id', () => {
    const e = expandCommand(def('claude', 'Fix $issue on $branch-name in ${CLAUDE_SKILL_DIR} (${CLAUDE_SESSION_ID})', { argumentNames: ['issue', 'branch-name'] }), input('42 hotfix', { skillDir: '/s/k' }));
    expect(text(e.parts)).toBe('Fix 42 on hotfix in /s/k (sess-1)');
  });
  it('shell lines inline and fenced, arguments put in as typed; @path words to attach', () => {
    const e = expandCommand(def('claude', 'Status: !`git status $0`\n```!\ngit log -n 2\n```\nRead @docs/a.md and @src/b.ts.'), input('--short'));
    expect(e.parts).toEqual([
      { kind: 'text', text: 'Status: ' },
      { kind: 'shell', command: 'git status --short', style: 'raw' },
      { kind: 'text', text: '\n' },
      { kind: 'shell', command: 'git log -n 2', style: 'raw' },
      { kind: 'text', text: '\nRead @docs/a.md and @src/b.ts.' },
    ]);
    expect(e.attach).toEqual(['docs/a.md', 'src/b.ts']);
  });
});

describe('OpenCode: $1 from 1, the last placeholder takes the rest', () => {
  it('numbers from 1, the highest takes the rest, missing are empty', () => {
    expect(text(expandCommand(def('opencode', 'Review $1; focus on: $2'), input('src/a.ts error handling and "the tests"')).parts)).toBe('Review src/a.ts; focus on: error handling and the tests');
    expect(text(expandCommand(def('opencode', 'One $1 two $2 three $3'), input('a')).parts)).toBe('One a two  three');
  });
  it('appends the arguments after a blank line when the text has no placeholder, and trims', () => {
    expect(text(expandCommand(def('opencode', 'Do it.'), input('now please')).parts)).toBe('Do it.\n\nnow please');
    expect(text(expandCommand(def('opencode', '$1 first '), input('  ')).parts)).toBe('first');
  });
});

describe('Codex: $1..$9 from 1, $ARGUMENTS joined, $$ a dollar, named $UPPER', () => {
  it('positional', () => {
    expect(text(expandCodex('Explain $1 at $2; all: $ARGUMENTS; costs $$5.', 'src/a.ts "deep dive"'))).toBe('Explain src/a.ts at deep dive; all: src/a.ts deep dive; costs $5.');
  });
  it('named, from NAME=value or given inputs', () => {
    const d = def('codex', 'Ticket $TICKET_ID for $AREA; $ARGUMENTS');
    expect(d.inputs.map((i) => i.name)).toEqual(['TICKET_ID', 'AREA']);
    expect(missingInputs(d, 'TICKET_ID=7', {})).toEqual([{ name: 'AREA' }]);
    expect(text(expandCommand(d, input('TICKET_ID=7', { inputs: { AREA: 'billing' } })).parts)).toBe('Ticket 7 for billing; TICKET_ID=7');
  });
});

function expandCodex(template: string, args: string): Part[] {
  return expandCommand(def('codex', template), input(args)).parts;
}

describe('Cursor: plain text, arguments after it', () => {
  it('keeps $1 and !`x` as text', () => {
    expect(expandCommand(def('cursor', 'Sort imports. $1 !`rm -rf x`'), input('in src')).parts).toEqual([{ kind: 'text', text: 'Sort imports. $1 !`rm -rf x`\n\nin src' }]);
  });
});

describe('VS Code: ${input:name} asked for, workspace variables filled', () => {
  it('inputs from name=value, the workspace, extra words after', () => {
    const d = def('vscode', 'Form ${input:formName:Name of the form} in ${workspaceFolderBasename} (${workspaceFolder}); ${selection} stays.');
    expect(d.inputs).toEqual([{ name: 'formName', placeholder: 'Name of the form' }]);
    expect(missingInputs(d, 'with validation', {})).toEqual([{ name: 'formName', placeholder: 'Name of the form' }]);
    expect(text(expandCommand(d, input('formName=Signup with validation')).parts)).toBe('Form Signup in app (/work/app); ${selection} stays.\n\nwith validation');
    expect(text(expandCommand(d, input('', { inputs: { formName: 'Login' } })).parts)).toBe('Form Login in app (/work/app); ${selection} stays.');
  });
});

describe('Gemini CLI: {{args}} raw outside, shell-quoted inside !{…}; @{file}; the typed command appended', () => {
  it('quotes inside shell blocks only, balanced braces', () => {
    const e = expandCommand(def('gemini', 'About {{args}}:\n!{grep -r {{args}} . | jq \'{a: .b}\'}\n@{docs/conventions.md}'), input("It's complicated"));
    expect(e.parts).toEqual([
      { kind: 'text', text: "About It's complicated:\n" },
      { kind: 'shell', command: "grep -r 'It'\\''s complicated' . | jq '{a: .b}'", style: 'gemini' },
      { kind: 'text', text: '\n' },
      { kind: 'file', path: 'docs/conventions.md' },
    ]);
  });
  it('without {{args}}: the whole typed line after a blank line, only when arguments were given', () => {
    expect(text(expandCommand(def('gemini', 'Changelog.'), input('1.2.0 added "x"', { typed: '/changelog 1.2.0 added "x"' })).parts)).toBe('Changelog.\n\n/changelog 1.2.0 added "x"');
    expect(text(expandCommand(def('gemini', 'Changelog.'), input('')).parts)).toBe('Changelog.');
  });
});

describe('what was typed never becomes a line that runs', () => {
  it('for every dialect, the shell lines are exactly the file’s own, whatever the arguments hold', () => {
    const hostile = fc.array(fc.constantFrom('!`touch PWNED`', '!{touch PWNED}', '```!\ntouch PWNED\n```', '$0', '$1', '$ARGUMENTS', '{{args}}', '@{/etc/passwd}', '"', "'", ' ', 'x'), { maxLength: 12 }).map((a) => a.join(''));
    const templates: [Dialect, string, number][] = [
      ['claude', 'Do $ARGUMENTS then !`echo $0` and $1', 1],
      ['opencode', 'Do $ARGUMENTS then !`echo $1`', 1],
      ['gemini', 'Do {{args}} then !{echo {{args}}}', 1],
      ['codex', 'Do $ARGUMENTS and $1', 0],
      ['cursor', 'Do it', 0],
      ['vscode', 'Do ${input:x}', 0],
    ];
    fc.assert(
      fc.property(hostile, fc.constantFrom(...templates), (args, [dialect, template, shells]) => {
        const e = expandCommand(def(dialect, template), input(args, { inputs: { x: args } }));
        const lines = e.parts.filter((p) => p.kind === 'shell');
        expect(lines).toHaveLength(shells);
        for (const l of lines) if (l.kind === 'shell' && dialect === 'gemini') expect(l.command.startsWith("echo '")).toBe(true);
        expect(e.parts.filter((p) => p.kind === 'file')).toHaveLength(0);
      }),
      { numRuns: 500 },
    );
  });
});

describe('parseSlash and the files', () => {
  it('takes the name and the rest; names may hold : and /', () => {
    expect(parseSlash('/review src/a.ts  now')).toEqual({ name: 'review', args: 'src/a.ts  now' });
    expect(parseSlash('  /git:commit')).toEqual({ name: 'git:commit', args: '' });
    expect(parseSlash('/team/review x')).toEqual({ name: 'team/review', args: 'x' });
    expect(parseSlash('not a command')).toBeNull();
    expect(parseSlash('/ spaced')).toBeNull();
  });
  it('reads a TOML prompt, and one that is not TOML by hand with a problem', () => {
    expect(parseCommandFile('description = "D"\nprompt = """\nHello {{args}}\n"""\n', 'gemini', 'x.toml')).toMatchObject({ description: 'D', template: 'Hello {{args}}', problems: [] });
    const broken = parseCommandFile('description = "D"\nprompt = """\nStill {{args}}\n"""\nnot toml here\n', 'gemini', 'b.toml');
    expect(broken.template).toBe('Still {{args}}');
    expect(broken.problems[0]).toMatch(/not valid TOML .* read by hand/);
    expect(parseCommandFile('prompt = 3', 'gemini', 'n.toml').problems).toContain('it has no "prompt" string, which Gemini CLI requires');
  });
  it('a Markdown command without a description is described by its first line', () => {
    expect(parseCommandFile('# Tidy imports\n\nSort them.', 'cursor', 'tidy.md').description).toBe('Tidy imports');
  });
});
