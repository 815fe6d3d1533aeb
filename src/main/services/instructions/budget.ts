// Sharing one character budget among instruction files: a file smaller than its fair share
// keeps all of it, and what the small ones leave is split evenly among the large ones
// (water-filling). Every file keeps a part, and only the largest are cut.

/** How many characters of each size to keep so the total fits `budget`. */
export function fitBudget(sizes: readonly number[], budget: number): number[] {
  const total = sizes.reduce((n, s) => n + s, 0);
  if (total <= budget) return [...sizes];
  const keep = sizes.map(() => 0);
  let left = Math.max(0, budget);
  let open = sizes.map((_, i) => i).sort((a, b) => sizes[a] - sizes[b]);
  while (open.length) {
    const share = Math.floor(left / open.length);
    const small = open.filter((i) => sizes[i] <= share);
    if (!small.length) {
      // Everyone left is larger than an even share: each gets it, the first ones the remainder.
      open.forEach((i, k) => (keep[i] = share + (k < left - share * open.length ? 1 : 0)));
      break;
    }
    for (const i of small) {
      keep[i] = sizes[i];
      left -= sizes[i];
    }
    open = open.filter((i) => sizes[i] > share);
  }
  return keep;
}

/** `text` cut to at most `chars`, at the last line break in its second half when there is one. */
export function cutAtLine(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const head = text.slice(0, chars);
  const nl = head.lastIndexOf('\n');
  return nl >= chars / 2 ? head.slice(0, nl + 1) : head;
}
