// The files a known command reads or writes, from its words: `cat .env` reads .env, `cp -r a b`
// reads everything under a and writes b, `sort -o out` writes out. Options are told apart from
// operands the way the command does; an option we do not know is taken for a flag, so at worst
// a value is checked as a path too (never a path skipped as a value).
import { literalWord, unknownWord, type Word } from './expansion';
import type { Arg } from './wrappers';

export interface PathRef {
  /** The word as written, expanded against each folder the command may run in. */
  word: Word;
  raw: string;
  /** What refers to it: "redirect", or the command name. */
  by: string;
  /** The command may create, change or delete it. */
  write: boolean;
  /** The command returns its content (or, with `beneath`, the content of everything under it). */
  read?: boolean;
  /** Everything beneath it is read or written, with names the command decides. */
  beneath?: boolean;
  /** Only a path if it expands to something that looks like one (`/…`, `~…`, `../…`). */
  ifPathLike?: boolean;
  /** A command we know nothing of may read or write it: a protected path or a file a read rule covers asks. */
  mayRead?: boolean;
  /** The path is what follows this prefix in the expanded word (`of=`, `--output=`). */
  prefix?: string;
}

interface Spec {
  /** Every operand may be created, changed or deleted. */
  write?: boolean;
  /** Operands whose content is read. */
  read?: boolean;
  /** The first operand is a pattern or script, unless one of `patternOpts` supplied it. */
  patternFirst?: boolean;
  patternOpts?: string[];
  /** Options whose value is a path written (`-o`, `--output`), or read. */
  writeOpts?: string[];
  readOpts?: string[];
  /** Options that take a value that is not a path (so it is not an operand either). */
  valueOpts?: string[];
  /** Recursion: always, or when one of these options is given. */
  recursive?: true | string[];
  /** What a recursive command reads when given no operand. */
  defaultDir?: boolean;
  /** Options that make every operand written (sed -i). */
  writeWith?: string[];
}

const READERS =
  'cat tac head tail less more nl uniq cut paste base64 base32 basenc xxd od hexdump hd strings diff diff3 sdiff cmp comm wc md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum sum zcat bzcat xzcat zless jq yq fold fmt column expand unexpand rev look iconv pr file shuf join tsort bat batcat pygmentize nroff dos2unix unix2dos view'.split(
    ' ',
  );
const WRITE_ONLY = 'rm rmdir unlink mkdir touch chmod chown chgrp truncate shred mkfifo mknod link setfacl chattr sponge tee'.split(' ');
const ARCHIVERS = 'gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd lz4 zip'.split(' ');

const SPECS = new Map<string, Spec>();
for (const c of READERS) SPECS.set(c, { read: true });
for (const c of WRITE_ONLY) SPECS.set(c, { write: true });
for (const c of ARCHIVERS) SPECS.set(c, { read: true, write: true, recursive: ['-r', '--recursive'] });
// uniq and xxd write their second operand; dos2unix converts in place.
for (const c of ['uniq', 'xxd', 'dos2unix', 'unix2dos']) SPECS.set(c, { read: true, write: true });
SPECS.set('yq', { read: true, writeWith: ['-i', '--inplace'] });
SPECS.set('sort', { read: true, writeOpts: ['-o', '--output'], valueOpts: ['-k', '--key', '-t', '--field-separator', '-S', '--buffer-size', '-T', '--temporary-directory'] });
SPECS.set('shuf', { read: true, writeOpts: ['-o', '--output'] });
SPECS.set('split', { read: true, write: true });
SPECS.set('csplit', { read: true, write: true, writeOpts: ['-f', '--prefix'] });
for (const c of ['grep', 'egrep', 'fgrep', 'zgrep']) {
  SPECS.set(c, {
    read: true,
    patternFirst: true,
    patternOpts: ['-e', '--regexp', '-f', '--file'],
    readOpts: ['-f', '--file'],
    valueOpts: ['-m', '--max-count', '-A', '--after-context', '-B', '--before-context', '-C', '--context', '--include', '--exclude', '--exclude-dir', '--color', '--colour', '--label'],
    recursive: ['-r', '-R', '--recursive', '--dereference-recursive', '-d', '--directories'],
    defaultDir: true,
  });
}
for (const c of ['rg', 'ag', 'ack']) {
  SPECS.set(c, {
    read: true,
    patternFirst: true,
    patternOpts: ['-e', '--regexp', '-f', '--file', '--files'],
    readOpts: ['-f', '--file', '--ignore-file'],
    valueOpts: ['-g', '--glob', '--iglob', '-t', '--type', '-T', '--type-not', '-m', '--max-count', '-A', '-B', '-C', '--context', '--max-depth', '-d'],
    recursive: true,
    defaultDir: true,
  });
}
SPECS.set('rm', { write: true, recursive: ['-r', '-R', '--recursive'] });
SPECS.set('tar', { read: true, recursive: true, writeOpts: ['-f', '--file'], valueOpts: ['-C', '--directory', '-T', '--files-from', '-X', '--exclude-from', '-b', '--blocking-factor'] });
SPECS.set('sed', { read: true, writeWith: ['-i', '--in-place'], patternFirst: true, patternOpts: ['-e', '--expression', '-f', '--file'], readOpts: ['-f', '--file'], valueOpts: ['-l', '--line-length'] });
for (const c of ['awk', 'gawk', 'mawk', 'nawk']) {
  SPECS.set(c, { read: true, patternFirst: true, patternOpts: ['-f', '--file', '-e', '--source'], readOpts: ['-f', '--file'], valueOpts: ['-v', '--assign', '-F', '--field-separator'] });
}
const COPIERS: Spec = { read: true, write: true, writeOpts: ['-t', '--target-directory'], valueOpts: ['-S', '--suffix'], recursive: ['-r', '-R', '-a', '--recursive', '--archive'] };
SPECS.set('cp', COPIERS);
SPECS.set('mv', { ...COPIERS, recursive: true });
// A link to a folder makes every later path through it a path into that folder: a link to the
// root (`ln -s . up`, then `up/.gi?/config`) counts like a write beneath it.
SPECS.set('ln', { read: true, write: true, writeOpts: ['-t', '--target-directory'], valueOpts: ['-S', '--suffix'], recursive: true });
for (const c of ['vi', 'vim', 'nvim', 'view', 'nano', 'emacs', 'ed', 'ex']) SPECS.set(c, { read: true, write: true });
SPECS.set('install', { read: true, write: true, writeOpts: ['-t', '--target-directory'], valueOpts: ['-m', '--mode', '-o', '--owner', '-g', '--group', '-S', '--suffix'] });
SPECS.set('diff', { read: true, recursive: ['-r', '--recursive'] });
SPECS.set('curl', { writeOpts: ['-o', '--output', '-D', '--dump-header', '-c', '--cookie-jar', '--trace', '--trace-ascii', '--libcurl', '--stderr', '--output-dir'], readOpts: ['-T', '--upload-file', '-K', '--config', '-b', '--cookie'] });
SPECS.set('wget', { writeOpts: ['-O', '--output-document', '-o', '--output-file', '-a', '--append-output', '-P', '--directory-prefix'], readOpts: ['-i', '--input-file', '--post-file', '--body-file', '--load-cookies'] });
SPECS.set('openssl', { writeOpts: ['-out'], readOpts: ['-in', '-inkey', '-key'] });
// Commands that name paths without returning their content.
for (const c of ['ls', 'tree', 'stat', 'du', 'readlink', 'realpath', 'find', 'cd', 'pushd', 'open', 'xdg-open', 'code']) SPECS.set(c, {});
/** Commands that never open their operands: a word that names a secret is only a word to them. */
const NEVER_READ = new Set(['echo', 'printf', 'test', '[', '[[', 'basename', 'dirname', 'which', 'type', 'true', 'false', 'exit', 'return', 'export', 'unset', 'local', 'declare', 'readonly', 'set', 'kill', 'sleep']);

export const isFileCommand = (base: string): boolean => SPECS.has(base);

/** Is `v` this option, alone or with an attached value? Returns the attached value's prefix, '' when separate, null when not it. */
function optionMatch(v: string, opt: string): string | null {
  if (v === opt) return '';
  if (opt.startsWith('--') && v.startsWith(`${opt}=`)) return `${opt}=`;
  // Short options take attached values (`-ofile`); so do single-dash long ones (openssl -out).
  if (!opt.startsWith('--') && opt.length === 2 && v.startsWith(opt) && !v.startsWith('--')) return opt;
  return null;
}

/** A short-option bundle (`-rn`, `-ie`) that contains one of `opts`' letters. */
function inBundle(v: string, opts: string[]): boolean {
  if (!/^-[A-Za-z0-9]{2,}$/.test(v)) return false;
  return opts.some((o) => o.length === 2 && o[0] === '-' && v.includes(o[1]));
}

const ref = (a: Arg, by: string, r: Omit<PathRef, 'word' | 'raw' | 'by'>): PathRef => ({ word: a.word ?? (a.value === null ? unknownWord(a.raw, `${a.raw} is only known when it runs`) : literalWord(a.value)), raw: a.raw, by, ...r });

/** Paths named by a command's words (after wrappers): operands and option values. */
export function operandRefs(base: string, args: Arg[]): PathRef[] {
  const spec = SPECS.get(base);
  const out: PathRef[] = [];
  const rest = args.slice(1);
  if (!spec) {
    // A command we know nothing of: its arguments are paths only when they look like paths.
    const mayRead = !NEVER_READ.has(base);
    for (const a of rest) {
      if (/^[<>]\(/.test(a.raw)) continue;
      const eq = a.value?.startsWith('-') ? a.value.indexOf('=') : -1;
      if (eq > 0) out.push({ ...ref(a, base, { write: false, ifPathLike: true, mayRead }), prefix: a.value!.slice(0, eq + 1) });
      else out.push(ref(a, base, { write: false, ifPathLike: true, mayRead }));
    }
    return out;
  }
  const read = !!spec.read;
  const opts = rest.filter((a) => a.value?.startsWith('-') && a.value !== '-');
  const has = (list: string[] | undefined) => !!list && opts.some((a) => list.some((o) => optionMatch(a.value!, o) !== null) || inBundle(a.value!, list));
  const write = !!spec.write || has(spec.writeWith);
  const recursive = spec.recursive === true || has(spec.recursive as string[] | undefined);
  let needPattern = !!spec.patternFirst && !has(spec.patternOpts);
  let operands = 0;
  let afterDashDash = false;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const v = a.value;
    // `<(cmd)` is a pipe the shell makes; the command inside is judged on its own.
    if (/^[<>]\(/.test(a.raw)) continue;
    if (v === '--' && !afterDashDash) {
      afterDashDash = true;
      continue;
    }
    if (v !== null && v.startsWith('-') && v !== '-' && !afterDashDash) {
      i = optionRefs(spec, base, rest, i, out, write);
      continue;
    }
    if (needPattern) {
      needPattern = false;
      continue;
    }
    operands++;
    out.push(ref(a, base, { write, ...(read ? { read } : {}), ...(recursive ? { beneath: true } : {}) }));
  }
  if (!operands && recursive && spec.defaultDir) out.push({ word: literalWord('.'), raw: '.', by: base, write: false, read: true, beneath: true });
  return out;
}

/** Handles the option at rest[i]; returns the index of the last word it used. */
function optionRefs(spec: Spec, base: string, rest: Arg[], i: number, out: PathRef[], write: boolean): number {
  const v = rest[i].value!;
  const lists = [
    [spec.writeOpts, { write: true }],
    [spec.readOpts, { write: false, read: true }],
    [spec.valueOpts, null],
    [spec.patternOpts, null],
  ] as const;
  const take = (r: Omit<PathRef, 'word' | 'raw' | 'by'> | null, prefix: string): number => {
    const valueAt = prefix === '' ? i + 1 : i;
    const arg = rest[valueAt];
    if (r && arg) out.push({ ...ref(arg, base, r), ...(prefix ? { prefix } : {}) });
    return valueAt;
  };
  for (const [list, r] of lists) {
    for (const o of list ?? []) {
      const m = optionMatch(v, o);
      if (m !== null) return take(r, m);
    }
  }
  // `-uo out`, `-rie pat`: in a bundle of short flags, the first that takes a value takes the rest.
  if (/^-[A-Za-z0-9]{2,}/.test(v)) {
    for (let k = 1; k < v.length; k++) {
      for (const [list, r] of lists) {
        if (list?.includes(`-${v[k]}`)) return take(r, k + 1 < v.length ? v.slice(0, k + 1) : '');
      }
    }
  }
  // A writer's `--x=value` may name a file we did not list: check it like a written path.
  const eq = v.indexOf('=');
  if (write && v.startsWith('--') && eq > 0) out.push({ ...ref(rest[i], base, { write: true }), prefix: v.slice(0, eq + 1) });
  return i;
}
