import { useApp } from '../store';
import type { LspStatusView } from '../../shared/contract';
import { trustPromptShown } from '../store/trustSlice';
import { countOf, countWords } from '../problems/problemList';
import { RemoteStatus } from '../remote/RemoteStatus';

const CONNECTION_LABEL = { connecting: 'Connecting…', open: 'Connected', reconnecting: 'Reconnecting…', lost: 'Connection lost' } as const;

const LANGUAGE_LABEL: Record<string, string> = { typescript: 'TS', python: 'Python', go: 'Go', rust: 'Rust', cpp: 'C/C++' };
const STATE_LABEL: Record<LspStatusView['state'], string> = { starting: 'starting', ready: 'ready', restarting: 'restarting', stopped: 'stopped', failed: 'not running' };

function serverTitle(s: LspStatusView): string {
  const ts = s.typescript?.version ? `\nTypeScript ${s.typescript.version} (${s.typescript.source === 'workspace' || s.typescript.source === 'user-setting' ? 'as configured' : s.typescript.source})` : '';
  return `${s.server}: ${STATE_LABEL[s.state]}${s.message ? ` — ${s.message}` : ''}${s.sandboxed ? '\nInside the OS sandbox (the workspace read-only, no network)' : ''}${ts}`;
}

export function StatusBar() {
  const transport = useApp((s) => s.transport);
  const state = useApp((s) => s.connection.state);
  const root = useApp((s) => s.workspace?.root);
  const isGit = useApp((s) => s.workspace?.isGitRepo ?? false);
  const changes = useApp((s) => s.gitChanges);
  const gitSlow = useApp((s) => s.gitSlow);
  const language = useApp((s) => (s.openFile?.file?.content !== undefined ? s.openFile.file.language : undefined));
  // Text files are editable; the rest shows what it is and says so.
  const readOnly = useApp((s) => {
    const f = s.openFile?.file;
    return Boolean(f && (f.read_only !== undefined || f.binary || f.tooLarge));
  });
  const version = useApp((s) => s.appInfo?.version);
  // Declined (or not yet answered): the project's grants are off; one click asks again.
  const untrusted = useApp((s) => Boolean(s.trust?.needed && !s.trust.trusted));
  const asking = useApp((s) => trustPromptShown(s.trust));
  const reopenTrust = useApp((s) => s.reopenTrust);
  const index = useApp((s) => s.indexProgress);
  const servers = useApp((s) => s.lspServers);
  const errors = useApp((s) => countOf(s.problems, 'error'));
  const warnings = useApp((s) => countOf(s.problems, 'warning'));
  const showProblems = useApp((s) => s.showProblems);
  const remote = useApp((s) => s.remote !== null);

  return (
    <footer className="statusbar">
      {remote ? (
        <RemoteStatus />
      ) : (
        <span className={`status-conn status-${state}`} title={transport === 'electron' ? 'Desktop app' : 'Browser, via loupe serve'}>
          <span className="status-dot" aria-hidden="true" />
          {transport === 'electron' ? 'Local' : CONNECTION_LABEL[state]}
        </span>
      )}
      {root && <span className="status-item status-path">{root}</span>}
      {index && (
        <span className="status-item" data-testid="index-status">
          {index.done ? `${index.files.toLocaleString('en-US')} ${index.files === 1 ? 'file' : 'files'}` : `Indexing ${index.files.toLocaleString('en-US')} files…`}
        </span>
      )}
      {isGit && <span className="status-item">{changes === 0 ? 'git: clean' : `git: ${changes} changed`}</span>}
      {isGit && gitSlow && (
        <span className="status-item status-warn" data-testid="git-slow" title="git status did not finish in time here, so the badges may be out of date. They update when a later run finishes in time.">
          git status is slow here
        </span>
      )}
      {untrusted && !asking && (
        <button type="button" className="status-item status-trust" data-testid="trust-status" title="This folder's .loupe/config.json is not trusted: its allow rules and test commands are off" onClick={reopenTrust}>
          Project rules off
        </button>
      )}
      <span className="status-spacer" />
      {(servers.length > 0 || errors + warnings > 0) && (
        <button type="button" className="status-item status-problems" data-testid="problems-count" data-errors={errors} data-warnings={warnings} title={`${countWords(errors, warnings)} in the files the language servers checked: show the Problems list`} onClick={() => showProblems(true)}>
          <span className={errors ? 'status-problems-error' : undefined}>⊗ {errors}</span>
          <span className={warnings ? 'status-problems-warning' : undefined}>⚠ {warnings}</span>
        </button>
      )}
      {servers.map((s) => (
        <span key={s.language} className={`status-item status-lsp status-lsp-${s.state}`} data-testid="lsp-status" data-language={s.language} data-state={s.state} title={serverTitle(s)}>
          <span className="status-dot" aria-hidden="true" />
          {LANGUAGE_LABEL[s.language] ?? s.language}
        </span>
      ))}
      {language && <span className="status-item">{language}</span>}
      {language && readOnly && <span className="status-item">Read-only</span>}
      {version && <span className="status-item muted">Loupe {version}</span>}
    </footer>
  );
}
