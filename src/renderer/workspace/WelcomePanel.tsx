import { LogoIcon } from '../app/icons';
import { modKey } from '../app/platform';
import { useApp } from '../store';
import { OpenFolderForm } from './OpenFolderForm';
import { RecentList } from './RecentList';
import './workspace.css';

/** What the main area shows before any folder is open. */
export function WelcomePanel() {
  const transport = useApp((s) => s.transport);
  const focusNonce = useApp((s) => s.welcomeFocusNonce);
  const requestOpenFolder = useApp((s) => s.requestOpenFolder);
  const openError = useApp((s) => s.openError);

  return (
    <div className="welcome" data-testid="welcome">
      <div className="welcome-card">
        <div className="welcome-mark">
          <LogoIcon size={28} />
        </div>
        <h1 className="welcome-title">Loupe</h1>
        <p className="welcome-tagline">A coding agent you can watch. Open a project folder to begin.</p>
        {transport === 'electron' ? (
          <>
            <button type="button" className="btn btn-primary welcome-open" data-testid="welcome-open-folder" onClick={() => void requestOpenFolder()}>
              Open Folder…
            </button>
            {openError && (
              <div className="open-folder-error" role="alert">
                {openError}
              </div>
            )}
          </>
        ) : (
          <>
            <div className="welcome-label">Folder path</div>
            <OpenFolderForm autoFocus focusNonce={focusNonce} />
          </>
        )}
        <RecentList />
        <p className="welcome-hint muted">
          <span className="kbd">{modKey}</span> <span className="kbd">O</span> opens a folder at any time
        </p>
      </div>
    </div>
  );
}
