import { useEffect, useState } from 'react';
import type { ProcessView } from '../../shared/contract';
import { loadable } from '../app/loadable';
import { useApp } from '../store';
import './processes.css';

const processLog = loadable(() => import('./ProcessLog'));

function LoadedLog({ id }: { id: string }) {
  const { Component: ProcessLog, error } = processLog.use();
  if (error) return <div className="terminal-empty" role="alert">The log view could not be loaded: {error}.</div>;
  return ProcessLog ? <ProcessLog id={id} /> : null;
}

/** "exited 1", "killed", "ready": the row's status as a person reads it. */
export function statusLabel(p: ProcessView): string {
  if (p.status === 'exited') return `exited ${p.exit_code ?? p.signal ?? ''}`.trim();
  return p.status;
}

function uptime(p: ProcessView, now: number): string {
  const end = p.ended_at ? Date.parse(p.ended_at) : now;
  const s = Math.max(0, Math.round((end - Date.parse(p.started_at)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** A second's tick while something runs, for the uptimes. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/**
 * The ports to link to, as this machine reaches them. A remote workspace's are forwarded to this
 * machine's loopback (`remote.ports`); a port not forwarded (yet) is shown without a link.
 */
function portLinks(p: ProcessView, remotePorts: { remote_port: number; local_port: number }[] | null): { port: number; shown: number; local: number | null }[] {
  if (!remotePorts) return p.forwards.map((f) => ({ port: f.port, shown: f.host_port, local: f.host_port }));
  const local = (remote: number) => remotePorts.find((r) => r.remote_port === remote)?.local_port ?? null;
  const there = [...p.forwards.map((f) => ({ port: f.port, shown: f.host_port })), ...(p.sandboxed ? [] : p.ports.filter((port) => !p.forwards.some((f) => f.port === port)).map((port) => ({ port, shown: port })))];
  return there.map((x) => ({ ...x, local: local(x.shown) }));
}

function ProcessRow({ p, selected, now }: { p: ProcessView; selected: boolean; now: number }) {
  const selectProcess = useApp((s) => s.selectProcess);
  const remotePorts = useApp((s) => s.remote?.ports ?? null);
  const killProcess = useApp((s) => s.killProcess);
  const restartProcess = useApp((s) => s.restartProcess);
  const alive = p.status === 'starting' || p.status === 'running' || p.status === 'ready';
  return (
    <li
      className={`process-row${selected ? ' selected' : ''}`}
      data-testid="process-row"
      data-process-id={p.process_id}
      data-status={p.status}
      aria-selected={selected}
      onClick={() => selectProcess(p.process_id)}
    >
      <span className={`process-status status-${p.status}${p.status === 'exited' && p.exit_code !== 0 ? ' failed' : ''}`} data-testid="process-status">
        {statusLabel(p)}
      </span>
      <span className="process-command" title={`${p.command}${p.cwd ? ` (in ${p.cwd})` : ''}`}>
        {p.process_id} · {p.command}
      </span>
      <span className="process-ports">
        {portLinks(p, remotePorts).map((f) =>
          f.local === null ? (
            <span key={f.port} className="muted" data-testid="process-port" data-port={f.port} title="Listening there; not forwarded to this machine yet">
              :{f.shown}
            </span>
          ) : (
            <a key={f.port} href={`http://127.0.0.1:${f.local}/`} target="_blank" rel="noreferrer" data-testid="process-port" data-port={f.port} title={f.local !== f.shown ? `Port ${f.shown} there, forwarded to ${f.local} here` : undefined} onClick={(e) => e.stopPropagation()}>
              :{f.local}
            </a>
          ),
        )}
      </span>
      {p.sandboxed && <span className="process-sandboxed">sandboxed</span>}
      <span className="process-uptime">{uptime(p, now)}</span>
      <span className="process-actions">
        {alive && (
          <button type="button" className="btn btn-small" data-testid="process-stop" onClick={(e) => (e.stopPropagation(), void killProcess(p.process_id))}>
            Stop
          </button>
        )}
        <button type="button" className="btn btn-small" data-testid="process-restart" onClick={(e) => (e.stopPropagation(), void restartProcess(p.process_id))}>
          Restart
        </button>
      </span>
    </li>
  );
}

/** Background processes (bash run_in_background): a row each, the selected one's live log. */
export default function ProcessesPane() {
  const processes = useApp((s) => s.processes);
  const selected = useApp((s) => s.selectedProcessId);
  // A restart keeps the id and begins a new run (a new start time): the view follows the run.
  const run = useApp((s) => s.processes.find((p) => p.process_id === s.selectedProcessId)?.started_at);
  const error = useApp((s) => s.processesError);
  const now = useNow(processes.some((p) => !p.ended_at));
  useEffect(() => {
    void processLog.load().catch(() => undefined);
  }, []);
  return (
    <div className="processes-pane" data-testid="processes-pane">
      <div className="processes-inner">
        <ul className="process-list" aria-label="Background processes">
          {processes.map((p) => (
            <ProcessRow key={p.process_id} p={p} selected={p.process_id === selected} now={now} />
          ))}
          {processes.length === 0 && <li className="terminal-empty">No background processes. The agent starts them with bash run_in_background.</li>}
          {error && (
            <li className="terminal-error" role="alert">
              {error}
            </li>
          )}
        </ul>
        {selected && <LoadedLog key={`${selected}@${run}`} id={selected} />}
      </div>
    </div>
  );
}
