import { useCallback, useMemo, useRef, type KeyboardEvent } from 'react';
import type { ModificationStatus } from '../../shared/contract';
import { RefreshIcon } from '../app/icons';
import { filterModifications, useApp } from '../store';
import { useVirtualRows } from '../tree/useVirtualRows';
import { CommitApprovedButton, CommitApprovedPanel } from './CommitApproved';
import { preloadDiffView } from './diffLoad';
import { usePreloadWhenSettled } from '../app/usePreloadWhenSettled';
import { FileDiffIcon } from './icons';
import { timelineKeyAction } from './timelineKeys';
import { collapseSteps } from './timelineSteps';
import { undoneRequest } from './format';
import { TIMELINE_ROW_HEIGHT, TimelineRow, timelineRowId } from './TimelineRow';
import './review.css';

const STATUSES: { value: ModificationStatus | ''; label: string }[] = [
  { value: '', label: 'Any status' },
  { value: 'applied', label: 'Applied' },
  { value: 'approved', label: 'Approved' },
  { value: 'rolled_back', label: 'Rolled back' },
];

/**
 * Every modification of the workspace, newest first: a virtualised list, so 10,000 entries
 * cost as much DOM as a screenful. Clicking or Enter opens one in the diff view.
 */
export default function Timeline() {
  const modifications = useApp((s) => s.modifications);
  const total = useApp((s) => s.modificationsTotal);
  const status = useApp((s) => s.timelineStatus);
  const error = useApp((s) => s.timelineError);
  const filters = useApp((s) => s.reviewFilters);
  const selectedId = useApp((s) => s.selectedModificationId);
  const openId = useApp((s) => (s.diff?.target.kind === 'modification' ? s.diff.target.id : null));
  const openFilePath = useApp((s) => s.openFile?.path ?? null);
  const setFilters = useApp((s) => s.setReviewFilters);
  const select = useApp((s) => s.selectModification);
  const openModification = useApp((s) => s.openModification);
  const openFileDiff = useApp((s) => s.openFileDiff);
  const reload = useApp((s) => s.loadModifications);

  const listRef = useRef<HTMLDivElement>(null);
  const hasEntries = modifications.length > 0;
  usePreloadWhenSettled(preloadDiffView, hasEntries);
  // An undo or a redo is one step, one row; filtering on its group lists its files again.
  const rows = useMemo(() => {
    const shown = filterModifications(modifications, filters);
    return filters.group ? shown : collapseSteps(shown);
  }, [modifications, filters]);
  const byId = useMemo(() => new Map(modifications.map((m) => [m.modification_id, m])), [modifications]);
  const correlations = useMemo(() => {
    const seen = new Set<string>();
    for (const m of modifications) if (m.correlation_id) seen.add(m.correlation_id);
    return [...seen].slice(0, 200);
  }, [modifications]);
  // The subagents whose changes are here, for the agent filter (shown only when there are some).
  const agents = useMemo(() => {
    const seen = new Set<string>();
    for (const m of modifications) if (m.agent_id) seen.add(m.agent_id);
    return [...seen].slice(0, 200);
  }, [modifications]);
  const { start, end, viewportHeight } = useVirtualRows(listRef, TIMELINE_ROW_HEIGHT, rows.length);
  const cursor = selectedId === null ? -1 : rows.findIndex((m) => m.modification_id === selectedId);

  const onActivate = useCallback(
    (id: string) => {
      listRef.current?.focus({ preventScroll: true });
      void openModification(id);
    },
    [openModification],
  );

  const onGroup = useCallback((group: string) => setFilters({ group }), [setFilters]);

  const reveal = (index: number) => {
    const el = listRef.current;
    if (!el) return;
    const top = index * TIMELINE_ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + TIMELINE_ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + TIMELINE_ROW_HEIGHT - el.clientHeight;
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const pageSize = Math.max(1, Math.floor(viewportHeight / TIMELINE_ROW_HEIGHT) - 1);
    const action = timelineKeyAction(rows.length, cursor, e.key, pageSize);
    if (action.type === 'none') return;
    e.preventDefault();
    const id = rows[action.index].modification_id;
    if (action.type === 'move') {
      select(id);
      reveal(action.index);
    } else void openModification(id);
  };

  const filtered = rows.length !== modifications.length;
  return (
    <div className="timeline-pane">
      <div className="tl-filters">
        <div className="tl-filter-row">
          <input
            className="tl-input"
            type="search"
            placeholder="Request"
            aria-label="Filter by request"
            list="timeline-correlations"
            data-testid="timeline-filter-correlation"
            value={filters.correlation}
            onChange={(e) => setFilters({ correlation: e.target.value })}
            spellCheck={false}
          />
          <datalist id="timeline-correlations">
            {correlations.map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
          <select
            className="tl-select"
            aria-label="Filter by status"
            data-testid="timeline-filter-status"
            value={filters.status}
            onChange={(e) => setFilters({ status: e.target.value as ModificationStatus | '' })}
          >
            {STATUSES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        {(agents.length > 0 || filters.agent) && (
          <div className="tl-filter-row">
            <select className="tl-select tl-agent-filter" aria-label="Filter by agent" data-testid="timeline-filter-agent" value={filters.agent ?? ''} onChange={(e) => setFilters({ agent: e.target.value })}>
              <option value="">Every agent</option>
              <option value="self">The sessions themselves</option>
              {agents.map((a) => (
                <option key={a} value={a}>
                  Subagent {a}
                </option>
              ))}
            </select>
          </div>
        )}
        <div className="tl-filter-row">
          <input
            className="tl-input"
            type="search"
            placeholder="File"
            aria-label="Filter by file"
            data-testid="timeline-filter-file"
            value={filters.file}
            onChange={(e) => setFilters({ file: e.target.value })}
            spellCheck={false}
          />
          <button
            className="icon-btn"
            title={openFilePath ? `Compare ${openFilePath} with HEAD` : 'Open a file to compare it with HEAD'}
            aria-label="Compare the open file with HEAD"
            data-testid="review-file-diff"
            disabled={!openFilePath}
            onClick={() => openFilePath && void openFileDiff(openFilePath)}
          >
            <FileDiffIcon size={15} />
          </button>
          <button className="icon-btn" title="Refresh" aria-label="Refresh the timeline" onClick={() => void reload()}>
            <RefreshIcon size={15} />
          </button>
          <CommitApprovedButton />
        </div>
        {filters.group && (
          <div className="tl-filter-row">
            <span className="tl-group-filter" data-testid="timeline-group-filter">
              Group {filters.group}
              <button className="icon-btn" aria-label="Show every group" onClick={() => setFilters({ group: '' })}>
                ✕
              </button>
            </span>
          </div>
        )}
        <CommitApprovedPanel />
      </div>
      <div
        ref={listRef}
        className="timeline"
        role="listbox"
        aria-label="Modifications, newest first"
        tabIndex={0}
        data-testid="timeline"
        data-count={rows.length}
        data-state={status}
        aria-activedescendant={cursor >= start && cursor < end ? timelineRowId(cursor) : undefined}
        onKeyDown={onKeyDown}
      >
        {status === 'error' && (
          <div className="tl-message error" role="alert">
            {error}
          </div>
        )}
        {status === 'loading' && modifications.length === 0 && <div className="tl-message">Loading…</div>}
        {status === 'ready' && modifications.length === 0 && (
          <div className="tl-empty">
            <p>No modifications yet.</p>
            <p className="muted">Every change the agent makes to a file appears here, newest first.</p>
          </div>
        )}
        {modifications.length > 0 && rows.length === 0 && <div className="tl-message">No modification matches the filters.</div>}
        <div className="tl-canvas" style={{ height: rows.length * TIMELINE_ROW_HEIGHT }}>
          {rows.slice(start, end).map((m, i) => (
            <TimelineRow
              key={m.modification_id}
              m={m}
              index={start + i}
              selected={m.modification_id === selectedId}
              open={m.modification_id === openId}
              onActivate={onActivate}
              groupPos={groupPosition(rows, start + i)}
              onGroup={onGroup}
              undone={m.group_kind === 'undo' || m.group_kind === 'redo' ? undoneRequest(m, (id) => byId.get(id)) : undefined}
            />
          ))}
        </div>
      </div>
      <div className="tl-footer">
        <span>{footerText(status, rows.length, modifications.length, total)}</span>
        {filtered && (
          <button className="tl-clear" onClick={() => setFilters({ correlation: '', file: '', status: '', group: '', agent: '' })}>
            Clear filters
          </button>
        )}
      </div>
    </div>
  );
}

/** Where row i sits in a run of its group's rows (newest first), so the run is drawn as one. */
function groupPosition(rows: { group_id?: string }[], i: number): 'first' | 'mid' | 'last' | 'only' | null {
  const g = rows[i].group_id;
  if (!g) return null;
  const prev = rows[i - 1]?.group_id === g;
  const next = rows[i + 1]?.group_id === g;
  return prev && next ? 'mid' : prev ? 'last' : next ? 'first' : 'only';
}

function footerText(status: string, shown: number, loaded: number, total: number): string {
  if (status === 'error' && loaded === 0) return 'Timeline unavailable';
  const count = `${loaded.toLocaleString()} modification${loaded === 1 ? '' : 's'}`;
  const prefix = shown !== loaded ? `${shown.toLocaleString()} of ` : '';
  const more = total > loaded ? ` (newest of ${total.toLocaleString()})` : '';
  return prefix + count + more;
}
