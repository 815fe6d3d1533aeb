// Ways to spell a path so that bash, not the text, decides the name: globs, brackets, braces,
// quotes, `~`, and forms only known at run time. Each spelling is kept only if real bash
// expands it to the path (the unknown forms are kept regardless: they must ask).
import { execFileSync } from 'node:child_process';

/** Glob, bracket, brace and quoting variants of one relative or absolute path. */
export function globSpellings(target: string): string[] {
  const parts = target.split('/');
  const out = new Set<string>([target]);
  parts.forEach((c, i) => {
    if (c.length < 2 || c === '..') return;
    const dot = c.startsWith('.') ? 1 : 0;
    const with_ = (v: string) => [...parts.slice(0, i), v, ...parts.slice(i + 1)].join('/');
    const chars = [...c];
    const at = (k: number, s: string) => chars.map((ch, j) => (j === k ? s : ch)).join('');
    const last = chars.length - 1;
    out.add(with_(at(last, '?')));
    out.add(with_(at(dot, '?')));
    out.add(with_(`${c.slice(0, dot + 1)}*`));
    out.add(with_(`${c.slice(0, dot)}*${c.slice(-1)}`));
    if (/[a-z]/.test(chars[last])) out.add(with_(at(last, '[a-z]')));
    out.add(with_(at(last, `[${chars[last]}]`)));
    out.add(with_(at(last, '[!/]')));
    out.add(with_(`"${c.slice(0, -1)}"?`));
    out.add(with_(`'${c.slice(0, dot + 1)}'*`));
    out.add(with_(`{${c},nothing-here}`));
    out.add(with_(`${c.slice(0, -1)}{${c.slice(-1)},}`));
    out.add(with_(`${c.slice(0, dot)}*?`));
  });
  // Every component globbed at once.
  out.add(parts.map((c) => (c.length < 2 || c === '..' ? c : `${c.slice(0, c.startsWith('.') ? 2 : 1)}*`)).join('/'));
  return [...out];
}

/** Forms whose value only exists at run time: they must ask whatever they evaluate to. */
export function runtimeSpellings(target: string): string[] {
  const slash = target.lastIndexOf('/');
  const dir = slash === -1 ? '.' : target.slice(0, slash);
  const name = target.slice(slash + 1);
  return [
    `"$D"/${name}`,
    `$D/${name}`,
    `\${D}/${name}`,
    `\${D:-${dir}}/${name}`,
    `$(echo ${dir})/${name}`,
    `\`echo ${dir}\`/${name}`,
    `${dir}/$(printf ${name})`,
    `"$(echo ${target})"`,
    `${dir}/${name}$((0))`.replace('$((0))', '$((0-0))'),
    `$'${target}'`,
    `${dir}/\${N}`,
  ];
}

/**
 * For each word, the words real bash expands it to in `cwd` (with HOME set): one bash process
 * for the whole list.
 */
export function bashExpansions(words: string[], cwd: string, home: string): (string[] | null)[] {
  const script = words.map((w) => `printf '%s\\0' ${w} 2>/dev/null; printf '\\1\\0'`).join('\n');
  const out = execFileSync('bash', ['--norc', '--noprofile', '-s'], { input: script, cwd, env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8', maxBuffer: 64 << 20 });
  const groups: string[][] = [[]];
  for (const item of out.split('\0').slice(0, -1)) {
    if (item === '\x01') groups.push([]);
    else groups[groups.length - 1].push(item);
  }
  return words.map((_, i) => groups[i] ?? null);
}
