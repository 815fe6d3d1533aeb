import type { TreeEntry } from '../../shared/contract';

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

/** Directories first, then files; names compared as people read them (a2 before a10, case-blind). */
export function sortEntries(entries: readonly TreeEntry[]): TreeEntry[] {
  return [...entries].sort((a, b) => {
    if (a.kind !== b.kind) return a.kind === 'dir' ? -1 : 1;
    // The code-unit fallback keeps the order total for names equal to the collator (A vs a).
    return collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  });
}
