import { CloseIcon, PlusIcon, TerminalIcon } from '../app/icons';
import { loadable } from '../app/loadable';
import { LoadedView } from '../app/LoadedView';
import { useApp } from '../store';
import { ProcessesTab } from '../processes/ProcessesTab';
import { ProblemsTab } from '../problems/ProblemsTab';
import './terminal.css';

// The Processes and Problems lists are code for when their tab is first chosen.
const processesPane = loadable(() => import('../processes/ProcessesPane'));
const problemsPane = loadable(() => import('../problems/ProblemsPane'));

// xterm is a third of the page's script: split out, the first tree row and the chat do not wait
// for it to be evaluated. Output that arrives meanwhile waits in TerminalIo's backlog. Its load
// starts with the page, so it is evaluated while the page waits for the host's first answers,
// not later, in the middle of the folder's indexing (measured: a 141 ms task there otherwise).
const terminalView = loadable(() => import('./TerminalView'));
void terminalView.load().catch(() => undefined);

function LoadedTerminalView(props: { id: string; active: boolean }) {
  const { Component: TerminalView, error } = terminalView.use();
  if (error) return <div className="terminal-empty" role="alert">The terminal could not be loaded: {error}. Reload the page.</div>;
  return TerminalView ? <TerminalView {...props} /> : null;
}

/** The bottom pane: one tab per shell, the active one's xterm below. */
export function TerminalPane() {
  const terminals = useApp((s) => s.terminals);
  const activeId = useApp((s) => s.activeTerminalId);
  const error = useApp((s) => s.terminalError);
  const createTerminal = useApp((s) => s.createTerminal);
  const closeTerminal = useApp((s) => s.closeTerminal);
  const setActiveTerminal = useApp((s) => s.setActiveTerminal);
  const processesOpen = useApp((s) => s.processesOpen);
  const showProcesses = useApp((s) => s.showProcesses);
  const problemsOpen = useApp((s) => s.problemsOpen && !s.processesOpen);
  const showProblems = useApp((s) => s.showProblems);
  // A terminal is in front unless the processes or the problems are.
  const terminalShown = !processesOpen && !problemsOpen;

  return (
    <section className="terminal-pane" aria-label="Terminal">
      <div className="terminal-tabs" role="tablist">
        <span className="terminal-pane-title">Terminal</span>
        {terminals.map((t, i) => (
          <div
            key={t.id}
            role="tab"
            aria-selected={t.id === activeId && terminalShown}
            className={`terminal-tab${t.id === activeId && terminalShown ? ' active' : ''}${t.exitCode !== null ? ' exited' : ''}`}
            data-testid="terminal-tab"
            data-terminal-id={t.id}
            title={`${t.shell} · pid ${t.pid}`}
            onMouseDown={(e) => {
              // Middle click closes, as in browsers and editors.
              if (e.button === 1) {
                e.preventDefault();
                closeTerminal(t.id);
              }
            }}
            onClick={() => {
              showProcesses(false);
              showProblems(false);
              setActiveTerminal(t.id);
            }}
          >
            <TerminalIcon size={13} />
            <span className="terminal-tab-title">
              {i + 1}: {t.title}
            </span>
            <button
              type="button"
              className="terminal-tab-close"
              aria-label={`Close terminal ${i + 1}`}
              data-testid="terminal-close"
              onClick={(e) => {
                e.stopPropagation();
                closeTerminal(t.id);
              }}
            >
              <CloseIcon size={12} />
            </button>
          </div>
        ))}
        <button
          type="button"
          className="icon-btn terminal-new"
          data-testid="terminal-new"
          title="New terminal (Ctrl+Shift+`)"
          aria-label="New terminal"
          onClick={() => {
            showProcesses(false);
            showProblems(false);
            void createTerminal();
          }}
        >
          <PlusIcon size={14} />
        </button>
        <ProcessesTab />
        <ProblemsTab />
        {error && (
          <span className="terminal-error" role="alert">
            {error}
          </span>
        )}
      </div>
      {processesOpen && <LoadedView view={processesPane} what="processes" />}
      {problemsOpen && <LoadedView view={problemsPane} what="problems" />}
      <div className="terminal-body" data-testid="terminal" hidden={!terminalShown}>
        {terminals.map((t) => (
          <LoadedTerminalView key={t.id} id={t.id} active={t.id === activeId} />
        ))}
        {terminals.length === 0 && !error && <div className="terminal-empty">No terminal open. Press + to start one.</div>}
      </div>
    </section>
  );
}
