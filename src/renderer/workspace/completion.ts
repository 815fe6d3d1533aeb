/** The separator the host's paths use: the renderer cannot ask the OS, so it reads the paths. */
export function separatorOf(path: string): '/' | '\\' {
  return path.includes('\\') && !path.includes('/') ? '\\' : '/';
}

export function longestCommonPrefix(items: readonly string[]): string {
  if (items.length === 0) return '';
  let prefix = items[0];
  for (const item of items) {
    let i = 0;
    while (i < prefix.length && i < item.length && prefix[i] === item[i]) i++;
    prefix = prefix.slice(0, i);
  }
  return prefix;
}

/**
 * What Tab does to the typed path, shell-style: a single (or highlighted) candidate is taken
 * whole with a separator so the next Tab descends into it; several candidates complete to
 * their shared prefix. Returns null when Tab has nothing to add.
 */
export function tabComplete(typed: string, candidates: readonly string[], highlighted: number): string | null {
  const pick = highlighted >= 0 ? candidates[highlighted] : candidates.length === 1 ? candidates[0] : undefined;
  if (pick !== undefined) return pick + separatorOf(pick);
  const prefix = longestCommonPrefix(candidates);
  return prefix.length > typed.length ? prefix : null;
}

/** Splits a path into the folder it is in and its own name, for display. */
export function splitPath(path: string): { dir: string; name: string } {
  const sep = separatorOf(path);
  const trimmed = path.length > 1 && path.endsWith(sep) ? path.slice(0, -1) : path;
  const i = trimmed.lastIndexOf(sep);
  return i < 0 ? { dir: '', name: trimmed } : { dir: trimmed.slice(0, i + 1), name: trimmed.slice(i + 1) };
}
