// Where a value (or an object key) sits in a JSON text, so a schema problem can be reported
// with a line and column. The text is known to parse; this walks it once, no allocation of values.

/** Offset of the value at `path` (for an object member: of its key), or null when absent. */
export function offsetOfPath(text: string, path: (string | number)[]): number | null {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const skipString = () => {
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
  };
  const skipValue = (): void => {
    ws();
    const c = text[i];
    if (c === '"') return skipString();
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      while (i < text.length && text[i] !== close) {
        if (c === '{') {
          skipString();
          ws();
          i++;
        }
        skipValue();
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
      return;
    }
    while (i < text.length && !',]} \t\n\r'.includes(text[i])) i++;
  };
  ws();
  for (let depth = 0; depth < path.length; depth++) {
    const key = path[depth];
    const c = text[i];
    if (c !== '{' && c !== '[') return null;
    i++;
    let found = false;
    for (let index = 0; ; index++) {
      ws();
      if (i >= text.length || text[i] === '}' || text[i] === ']') return null;
      if (c === '{') {
        const keyAt = i;
        skipString();
        const name = JSON.parse(text.slice(keyAt, i)) as string;
        ws();
        i++;
        ws();
        if (name === String(key)) {
          if (depth === path.length - 1) return keyAt;
          found = true;
        }
      } else if (index === key) {
        if (depth === path.length - 1) return i;
        found = true;
      }
      if (found) break;
      skipValue();
      ws();
      if (text[i] === ',') i++;
    }
  }
  return i;
}
