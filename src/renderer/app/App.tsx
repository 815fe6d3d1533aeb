import { useApp } from '../store';
import { FindInFiles } from '../search/FindInFiles';
import { QuickOpen } from '../search/QuickOpen';
import { trustPromptShown } from '../store/trustSlice';
import { OpenFolderDialog } from '../workspace/OpenFolderDialog';
import { RemoteDialog } from '../remote/RemoteDialog';
import { useWindowTitle } from '../remote/useWindowTitle';
import { WelcomePanel } from '../workspace/WelcomePanel';
import './App.css';
import { ConnectionBanner } from './ConnectionBanner';
import { loadable } from './loadable';
import { LoadedView } from './LoadedView';
import { StatusBar } from './StatusBar';
import { TopBar } from './TopBar';
import { useGlobalShortcuts } from './useGlobalShortcuts';
import { Workbench } from './Workbench';
import { WorkspaceNotices } from './WorkspaceNotices';

// The undo preview is code for when an undo is first asked for.
const undoPreview = loadable(() => import('../undo/UndoPreview'));

function LazyUndoPreview() {
  const open = useApp((s) => !!s.undoDialog);
  return open ? <LoadedView view={undoPreview} what="undo preview" /> : null;
}

// The trust prompt is code for a folder that asks for it.
const trustPrompt = loadable(() => import('../trust/TrustPrompt'));

function LazyTrustPrompt() {
  const asking = useApp((s) => trustPromptShown(s.trust));
  return asking ? <LoadedView view={trustPrompt} what="trust prompt" /> : null;
}

export function App() {
  const known = useApp((s) => s.workspaceKnown);
  const hasWorkspace = useApp((s) => s.workspace !== null);
  const searchBox = useApp((s) => (s.workspace ? s.searchBox : null));
  useGlobalShortcuts();
  useWindowTitle();

  return (
    <div className="app">
      <TopBar />
      <ConnectionBanner />
      <WorkspaceNotices />
      <main className="app-main">{!known ? null : hasWorkspace ? <Workbench /> : <WelcomePanel />}</main>
      <StatusBar />
      <OpenFolderDialog />
      <RemoteDialog />
      <LazyTrustPrompt />
      <LazyUndoPreview />
      {searchBox === 'quick-open' && <QuickOpen />}
      {searchBox === 'find-in-files' && <FindInFiles />}
    </div>
  );
}
