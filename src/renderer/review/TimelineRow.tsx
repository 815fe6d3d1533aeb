import { memo } from 'react';
import { useApp } from '../store';
import type { TimelineItem } from './timelineSteps';
import { diagnosticsLabel, GROUP_LABEL, GROUP_TITLE, linesLabel, OPERATION_LABEL, PERSON_TOOL, reasonLine, requestLabel, revertedHunksLabel, shortTime, splitPath, statusLabel, stepLine, testTone } from './format';

export const TIMELINE_ROW_HEIGHT = 60;

export const timelineRowId = (index: number) => `timeline-row-${index}`;

interface TimelineRowProps {
  m: TimelineItem;
  index: number;
  selected: boolean;
  /** Shown in the diff view. */
  open: boolean;
  onActivate(id: string): void;
  /** Its place in a run of one group's rows (a command's writes, an undo), drawn joined. */
  groupPos: 'first' | 'mid' | 'last' | 'only' | null;
  /** Shows only that group's rows. */
  onGroup(group: string): void;
  /** An undo's or a redo's row: the request it was about. */
  undone?: string;
}

/** One modification: file and time, then why, then what (operation, lines, correlation, tests, status). */
export const TimelineRow = memo(function TimelineRow({ m, index, selected, open, onActivate, groupPos, onGroup, undone }: TimelineRowProps) {
  const request = useApp((s) => (m.correlation_id ? s.requestNames[m.correlation_id] : undefined));
  const undoneName = useApp((s) => (undone ? s.requestNames[undone] : undefined));
  const files = m.stepFiles && m.stepFiles.length > 1 ? m.stepFiles : null;
  // A step of several files names them; one of a single file is that file's row.
  const { name, dir } = files ? { name: `${files.length} files`, dir: files.join(', ') } : splitPath(m.file);
  const step = m.group_kind === 'undo' || m.group_kind === 'redo' ? stepLine(m.group_kind, undone, undoneName) : null;
  const lines = linesLabel(m);
  const tone = testTone(m);
  const t = m.test_results;
  const reverted = revertedHunksLabel(m);
  const problems = diagnosticsLabel(m);
  const classes = ['tl-row', `tl-${m.status}`];
  if (selected) classes.push('selected');
  if (open) classes.push('open');
  if (groupPos) classes.push('tl-in-group', `tl-group-${groupPos}`);
  return (
    <div
      id={timelineRowId(index)}
      className={classes.join(' ')}
      style={{ transform: `translateY(${index * TIMELINE_ROW_HEIGHT}px)` }}
      role="option"
      aria-selected={selected}
      data-testid="timeline-entry"
      data-modification-id={m.modification_id}
      data-status={m.status}
      data-file={m.file}
      data-agent-id={m.agent_id}
      data-tool={m.tool}
      data-group-id={m.group_id}
      data-group-kind={m.group_kind}
      data-step-files={m.stepFiles?.length}
      onClick={() => (files && m.group_id ? onGroup(m.group_id) : onActivate(m.modification_id))}
    >
      <div className="tl-line tl-head">
        <span className={`tl-dot tl-dot-${m.status}`} aria-hidden="true" />
        <span className="tl-file" title={files ? files.join('\n') : m.file}>
          <span className="tl-name">{name}</span>
          {dir && <span className="tl-dir">{dir}</span>}
        </span>
        {m.agent_id && (
          <span className="tl-agent" data-testid="timeline-agent" data-agent-id={m.agent_id} title={`Made by the subagent ${m.agent_id} of this request`}>
            agent
          </span>
        )}
        {m.tool === PERSON_TOOL && (
          <span className="tl-corr tl-by-person" title="Your own edit, saved in the editor" data-testid="timeline-by-person">
            You
          </span>
        )}
        {m.correlation_id && (
          <span className={request ? 'tl-corr tl-request' : 'tl-corr'} title={`Request ${m.correlation_id}${request ? `: ${request}` : ''}`} data-testid="timeline-request">
            {request ?? requestLabel(m.correlation_id)}
          </span>
        )}
        <time className="tl-time" dateTime={m.timestamp} title={`${new Date(m.timestamp).toLocaleString()} · ${m.modification_id}`}>
          {shortTime(m.timestamp)}
        </time>
      </div>
      <div className={m.command ? 'tl-line tl-reason tl-command' : m.reason || step ? 'tl-line tl-reason' : 'tl-line tl-reason none'} title={m.command ? `${m.command}${m.reason ? `\n${m.reason}` : ''}` : (step ?? m.reason)} data-testid="timeline-reason">
        {m.command ? `$ ${m.command}` : (step ?? reasonLine(m))}
      </div>
      <div className="tl-line tl-meta">
        <span className={`tl-op tl-op-${m.operation}`}>{OPERATION_LABEL[m.operation] ?? m.operation}</span>
        {m.tool.startsWith('acp:') && (
          <span className="tl-hosted-agent" data-testid="timeline-hosted-agent" data-agent={m.tool.slice(4)} title={`Made by the agent ${m.tool.slice(4)}, running in Loupe's sandbox`}>
            {m.tool.slice(4)}
          </span>
        )}
        {lines && !files && <span className="tl-lines">{lines}</span>}
        {m.lines_changed !== undefined && !files && (
          <span className="tl-lines" title={`${m.lines_changed} ${m.lines_changed === 1 ? 'line' : 'lines'} changed`}>
            ±{m.lines_changed}
          </span>
        )}
        {m.group_id && m.group_kind && (
          <button
            type="button"
            className={`tl-group tl-group-kind-${m.group_kind}`}
            title={`${GROUP_TITLE[m.group_kind]} ${m.group_id}: show only its changes`}
            data-testid="timeline-group"
            onClick={(e) => {
              e.stopPropagation();
              onGroup(m.group_id!);
            }}
          >
            {GROUP_LABEL[m.group_kind]}
          </button>
        )}
        <span className="tl-spacer" />
        {t && tone !== 'none' && (
          <span className={`tl-tests ${tone}`} title={`Tests: ${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ''} · ${t.duration_ms} ms`} data-testid="timeline-tests">
            ✓ {t.passed}
            {t.failed > 0 && <span className="tl-tests-failed">✗ {t.failed}</span>}
          </span>
        )}
        {problems && (
          <span className={`tl-diag tl-diag-${problems.tone}`} title={problems.title} data-testid="timeline-diagnostics" data-available={m.diagnostics?.available ? 'true' : 'false'} data-errors={m.diagnostics?.errors} data-warnings={m.diagnostics?.warnings}>
            {problems.label}
          </span>
        )}
        {reverted && (
          <span className="tl-hunks" title={reverted.title} data-testid="timeline-hunks-reverted" data-hunks={m.reverted_hunks?.join(',')}>
            {reverted.label}
          </span>
        )}
        {/* An undo in effect needs no "Applied": its operation already says what it did. */}
        {!(m.operation === 'rollback' && m.status === 'applied') && (
          <span className={`tl-status tl-status-${m.status}`} data-testid="timeline-status">
            {statusLabel(m)}
          </span>
        )}
      </div>
    </div>
  );
});
