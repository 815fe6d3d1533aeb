import { useApp } from '../store';
import { countOf } from './problemList';

/** The bottom pane's Problems tab, with how many errors and warnings the servers report. */
export function ProblemsTab() {
  const open = useApp((s) => s.problemsOpen && !s.processesOpen);
  const count = useApp((s) => countOf(s.problems, 'error') + countOf(s.problems, 'warning'));
  const show = useApp((s) => s.showProblems);
  return (
    <div role="tab" aria-selected={open} className={`terminal-tab problems-tab${open ? ' active' : ''}`} data-testid="problems-tab" title="Problems the language servers report in the files they checked" onClick={() => show(true)}>
      <span className="terminal-tab-title">Problems</span>
      {count > 0 && <span className="problems-badge">{count}</span>}
    </div>
  );
}
