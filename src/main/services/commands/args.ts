// Splitting what follows `/name` into arguments the way each agent does, and quoting a value for
// a shell line.

/**
 * Shell-style words, as Claude Code splits `$ARGUMENTS` for `$0`, `$1`…: single quotes keep
 * everything, double quotes keep all but `\"`, `\\`, `\$`, `` \` ``; a backslash outside quotes
 * keeps the next character. `$VAR` is kept as written (nothing is expanded). An unclosed quote
 * runs to the end.
 */
export function shellWords(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let any = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (/\s/.test(c)) {
      if (any) out.push(cur);
      cur = '';
      any = false;
      continue;
    }
    any = true;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      cur += end < 0 ? text.slice(i + 1) : text.slice(i + 1, end);
      i = end < 0 ? text.length : end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < text.length && text[j] !== '"'; j++) {
        if (text[j] === '\\' && j + 1 < text.length && '"\\$`'.includes(text[j + 1])) j++;
        cur += text[j];
      }
      i = j;
    } else if (c === '\\' && i + 1 < text.length) {
      cur += text[++i];
    } else cur += c;
  }
  if (any) out.push(cur);
  return out;
}

/** OpenCode's split: `"…"`, `'…'` or a run of other characters, the quotes then trimmed. */
export function opencodeWords(text: string): string[] {
  return (text.match(/(?:\[Image\s+\d+\]|"[^"]*"|'[^']*'|[^\s"']+)/gi) ?? []).map((a) => a.replace(/^["']|["']$/g, ''));
}

/** Codex's split: whitespace, with a double-quoted argument kept whole. */
export function codexWords(text: string): string[] {
  return (text.match(/"[^"]*"|\S+/g) ?? []).map((a) => (a.length >= 2 && a.startsWith('"') && a.endsWith('"') ? a.slice(1, -1) : a));
}

/** One word for a POSIX shell: single-quoted, a quote inside written as '\''. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}

/** `name=value` words (VS Code's input values, Codex's named arguments) and the words left over. */
export function namedValues(words: string[]): { named: Map<string, string>; rest: string[] } {
  const named = new Map<string, string>();
  const rest: string[] = [];
  for (const w of words) {
    const m = /^([A-Za-z_][\w-]*)=(.*)$/s.exec(w);
    if (m) named.set(m[1], m[2]);
    else rest.push(w);
  }
  return { named, rest };
}
