import { describe, expect, it } from 'vitest';
import type { ModificationView } from '../../shared/contract';
import { modificationWords, stepLine, undoneRequest } from './format';
import { collapseSteps } from './timelineSteps';

let n = 0;
const mod = (over: Partial<ModificationView>): ModificationView => ({ modification_id: `mod-${++n}`, timestamp: '2026-01-01T00:00:00Z', session_id: 's', tool: 'edit_file', operation: 'edit', file: 'a.ts', status: 'applied', git_staged: false, ...over });

describe('undo and redo as one step of the timeline', () => {
  it('folds each undo and redo into one row listing its files, and leaves the rest alone', () => {
    const rows = [
      mod({ file: 'x.ts', group_id: 'redo-1', group_kind: 'redo', operation: 'rollback' }),
      mod({ file: 'y.ts', group_id: 'redo-1', group_kind: 'redo', operation: 'rollback' }),
      mod({ file: 'README.md', group_id: 'undo-1', group_kind: 'undo', operation: 'rollback' }),
      mod({ file: 'test/cart.test.ts', group_id: 'undo-1', group_kind: 'undo', operation: 'rollback' }),
      mod({ file: 'c.ts', group_id: 'cmd-1', group_kind: 'command' }),
      mod({ file: 'd.ts', group_id: 'cmd-1', group_kind: 'command' }),
      mod({ file: 'e.ts' }),
    ];
    const out = collapseSteps(rows);
    expect(out.map((m) => m.stepFiles ?? m.file)).toEqual([['x.ts', 'y.ts'], ['README.md', 'test/cart.test.ts'], 'c.ts', 'd.ts', 'e.ts']);
    expect(collapseSteps(rows.slice(4))).toEqual(rows.slice(4));
  });

  it('names the request an undo or redo was about, and a modification in words', () => {
    const undo = mod({ group_kind: 'undo', group_id: 'undo-1', operation: 'rollback', undo_of: 'req-20260101-abc' });
    const redo = mod({ group_kind: 'redo', group_id: 'redo-1', operation: 'rollback', rolls_back: undo.modification_id });
    const byId = (id: string) => [undo, redo].find((m) => m.modification_id === id);
    expect(undoneRequest(redo, byId)).toBe('req-20260101-abc');
    const names = (id: string) => (id === 'req-20260101-abc' ? 'clean up' : undefined);
    expect(stepLine('undo', 'req-20260101-abc', 'clean up')).toBe('Undid “clean up”');
    expect(stepLine('redo', 'req-20260101-zzz', undefined)).toBe('Redid req zzz');
    expect(modificationWords(redo, 'req-20260101-abc', names)).toBe('Redo of “clean up”');
    expect(modificationWords(mod({ lines_affected: [2, 3], correlation_id: 'req-20260101-abc' }), undefined, names)).toBe('Edited lines 2–3 by edit_file for “clean up”');
    expect(modificationWords(mod({ operation: 'create', lines_affected: [1, 9], correlation_id: 'req-20260101-def' }), undefined, names)).toBe('Created by edit_file for req def');
    expect(modificationWords(mod({ tool: 'person', lines_affected: [3, 3] }), undefined, names)).toBe('Your edit, line 3, saved in the editor');
    expect(modificationWords(mod({ tool: 'bash', command: 'npm run fmt', correlation_id: 'req-20260101-abc' }), undefined, names)).toBe('Written by $ npm run fmt for “clean up”');
    expect(modificationWords(mod({ tool: 'acp:claude', lines_affected: [1, 1] }), undefined, names)).toBe('Edited line 1 by claude');
  });
});
