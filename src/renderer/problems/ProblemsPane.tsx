import { useMemo } from 'react';
import type { ProblemView } from '../../shared/contract';
import { FileIcon } from '../app/icons';
import { useApp } from '../store';
import { fileColor } from '../tree/fileKind';
import { problemFiles } from './problemList';
import './problems.css';

const SEVERITY_MARK: Record<ProblemView['severity'], string> = { error: '⊗', warning: '⚠', info: 'ⓘ', hint: '·' };

/** Every problem the language servers report in the files they checked, by file; a row opens its line. */
export default function ProblemsPane() {
  const all = useApp((s) => s.problems);
  const open = useApp((s) => s.openFilePath);
  const servers = useApp((s) => s.lspServers.length);
  const files = useMemo(() => problemFiles(all), [all]);
  return (
    <div className="problems-pane" data-testid="problems-list" role="list" aria-label="Problems">
      {files.length === 0 && (
        <div className="problems-empty">
          {servers ? 'No problems in the files the language servers have checked.' : 'No language server runs for this folder yet: problems show here once one checks a file (the agent’s edits, a file you open).'}
        </div>
      )}
      {files.map((f) => {
        const slash = f.file.lastIndexOf('/');
        const name = f.file.slice(slash + 1);
        return (
          <div key={f.file} className="problem-file-group" data-testid="problem-file" data-path={f.file}>
            <div className="problem-file" title={f.server ? `${f.file} · ${f.server}` : f.file}>
              <FileIcon size={13} style={{ color: fileColor(name) }} />
              <span className="problem-file-name">{name}</span>
              {slash > 0 && <span className="problem-file-dir">{f.file.slice(0, slash)}</span>}
              <span className="problem-file-count">{f.problems.length}</span>
            </div>
            {f.problems.map((p, i) => (
              <button
                key={i}
                type="button"
                role="listitem"
                className={`problem-row problem-${p.severity}`}
                data-testid="problem-row"
                data-path={f.file}
                data-line={p.line}
                data-severity={p.severity}
                title={`Open ${f.file} at line ${p.line}`}
                onClick={() => void open(f.file, p.line)}
              >
                <span className="problem-mark" aria-label={p.severity}>
                  {SEVERITY_MARK[p.severity]}
                </span>
                <span className="problem-message" title={p.message}>{p.message.split('\n')[0]}</span>
                <span className="problem-source">
                  {p.source}
                  {p.code ? `(${p.code})` : ''}
                </span>
                <span className="problem-where">
                  [Ln {p.line}, Col {p.column}]
                </span>
              </button>
            ))}
          </div>
        );
      })}
    </div>
  );
}
