// A sanity check on the model's corrections, not a way to find matches: a corrected snippet
// must still be about the same code (most of its words shared with what was asked), so a
// confident answer that points at some other, real, unique text is refused.

const words = (s: string): string[] => s.match(/[\p{L}\p{N}_]+/gu) ?? [];

/** Shared words (as a multiset) over the larger word count; 1 when neither has words. */
export function wordOverlap(a: string, b: string): number {
  const wa = words(a);
  const wb = words(b);
  if (wa.length === 0 && wb.length === 0) return 1;
  const counts = new Map<string, number>();
  for (const w of wa) counts.set(w, (counts.get(w) ?? 0) + 1);
  let shared = 0;
  for (const w of wb) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      shared++;
      counts.set(w, n - 1);
    }
  }
  return shared / Math.max(wa.length, wb.length);
}

export const MIN_OVERLAP = 0.5;
