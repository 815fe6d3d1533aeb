import type { ModificationView } from '../../shared/contract';

/** A timeline row: one modification, or an undo or a redo shown as the one step it was (its files listed). */
export type TimelineItem = ModificationView & { stepFiles?: string[] };

const isStep = (m: ModificationView) => (m.group_kind === 'undo' || m.group_kind === 'redo') && !!m.group_id;

/**
 * The rows with every undo and redo folded into one row, where its newest member stood: the
 * person undid a request in one click, and the timeline says so in one line. Filtering on the
 * group shows its files one by one again.
 */
export function collapseSteps(rows: readonly ModificationView[]): TimelineItem[] {
  const files = new Map<string, string[]>();
  for (const m of rows) if (isStep(m)) files.set(m.group_id!, [...(files.get(m.group_id!) ?? []), m.file]);
  if (!files.size) return rows as TimelineItem[];
  const seen = new Set<string>();
  const out: TimelineItem[] = [];
  for (const m of rows) {
    if (!isStep(m)) {
      out.push(m);
      continue;
    }
    if (seen.has(m.group_id!)) continue;
    seen.add(m.group_id!);
    out.push({ ...m, stepFiles: [...new Set(files.get(m.group_id!))] });
  }
  return out;
}
