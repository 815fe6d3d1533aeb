import { useApp } from '../store';

const CONNECTION_LABEL = { connecting: 'Connecting…', open: 'Connected', reconnecting: 'Reconnecting…' } as const;

export function StatusBar() {
  const transport = useApp((s) => s.transport);
  const state = useApp((s) => s.connection.state);
  const root = useApp((s) => s.workspace?.root);
  const isGit = useApp((s) => s.workspace?.isGitRepo ?? false);
  const changes = useApp((s) => Object.values(s.gitStatus).filter((b) => b !== '!').length);
  const language = useApp((s) => (s.openFile?.file?.content !== undefined ? s.openFile.file.language : undefined));
  const version = useApp((s) => s.appInfo?.version);

  return (
    <footer className="statusbar">
      <span className={`status-conn status-${state}`} title={transport === 'electron' ? 'Desktop app' : 'Browser, via loupe serve'}>
        <span className="status-dot" aria-hidden="true" />
        {transport === 'electron' ? 'Local' : CONNECTION_LABEL[state]}
      </span>
      {root && <span className="status-item status-path">{root}</span>}
      {isGit && <span className="status-item">{changes === 0 ? 'git: clean' : `git: ${changes} changed`}</span>}
      <span className="status-spacer" />
      {language && <span className="status-item">{language}</span>}
      {language && <span className="status-item">Read-only</span>}
      {version && <span className="status-item muted">Loupe {version}</span>}
    </footer>
  );
}
