// The front matter of a Cursor rule (`.cursor/rules/*.mdc`): the three keys Cursor reads, in
// the shapes people write them (a comma list, a quoted string, a flow or block YAML list).
// A hand reader, not a YAML library: three keys do not need one, and nothing here evaluates.

export interface CursorRule {
  description: string;
  globs: string[];
  alwaysApply: boolean;
  /** The rule's text without its front matter. */
  body: string;
}

const unquote = (s: string): string => {
  const t = s.trim();
  return t.length >= 2 && (t[0] === '"' || t[0] === "'") && t[t.length - 1] === t[0] ? t.slice(1, -1) : t;
};

function list(value: string): string[] {
  const v = value.trim();
  const inner = v.startsWith('[') && v.endsWith(']') ? v.slice(1, -1) : unquote(v);
  return inner
    .split(',')
    .map(unquote)
    .filter((g) => g.length > 0);
}

export function parseCursorRule(text: string): CursorRule {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const rule: CursorRule = { description: '', globs: [], alwaysApply: false, body: text };
  if (lines[0]?.trim() !== '---') return rule;
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === '---');
  if (end < 0) return rule;
  for (let i = 1; i < end; i++) {
    const m = /^([A-Za-z_]+)\s*:\s*(.*)$/.exec(lines[i]);
    if (!m) continue;
    const [, key, raw] = m;
    let value = raw;
    // A block list: the following "- item" lines.
    if (!value.trim()) {
      const items: string[] = [];
      while (i + 1 < end && /^\s*-\s+/.test(lines[i + 1])) items.push(unquote(lines[++i].replace(/^\s*-\s+/, '')));
      value = items.join(',');
    }
    if (key === 'description') rule.description = unquote(value);
    else if (key === 'globs') rule.globs = list(value);
    else if (key === 'alwaysApply') rule.alwaysApply = unquote(value).toLowerCase() === 'true';
  }
  rule.body = lines.slice(end + 1).join('\n');
  return rule;
}
