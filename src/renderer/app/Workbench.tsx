import { TerminalPane } from '../terminal/TerminalPane';
import { Sidebar } from '../tree/Sidebar';
import { FileViewer } from '../viewer/FileViewer';
import { AgentPanelSlot } from './AgentPanelSlot';
import { Splitter } from './Splitter';
import { useStoredSize } from './useStoredSize';

const SIDEBAR = { initial: 260, min: 160, max: 600 };
const TERMINAL = { initial: 240, min: 80, max: 1200 };

/** The open-workspace layout: explorer | viewer over terminal | the slot for the agent column. */
export function Workbench() {
  const [sidebar, setSidebar] = useStoredSize('sidebar', SIDEBAR.initial, SIDEBAR.min, SIDEBAR.max);
  const [terminal, setTerminal] = useStoredSize('terminal', TERMINAL.initial, TERMINAL.min, TERMINAL.max);

  return (
    <div className="workbench">
      <aside className="sidebar" style={{ width: sidebar }}>
        <Sidebar />
      </aside>
      <Splitter axis="col" size={sidebar} onResize={setSidebar} direction={1} onReset={() => setSidebar(SIDEBAR.initial)} label="Resize explorer" />
      <section className="center">
        <div className="center-viewer">
          <FileViewer />
        </div>
        <Splitter axis="row" size={terminal} onResize={setTerminal} direction={-1} onReset={() => setTerminal(TERMINAL.initial)} label="Resize terminal" />
        <div className="center-terminal" style={{ height: terminal }}>
          <TerminalPane />
        </div>
      </section>
      <AgentPanelSlot />
    </div>
  );
}
