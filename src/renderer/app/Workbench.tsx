import { DiffPane } from '../review/DiffPane';
import { TerminalPane } from '../terminal/TerminalPane';
import { Sidebar } from '../tree/Sidebar';
import { FileViewer } from '../viewer/FileViewer';
import { AgentPanelSlot } from './AgentPanelSlot';
import { Splitter } from './Splitter';
import { useStoredSize } from './useStoredSize';

const SIDEBAR = { initial: 260, min: 160, max: 600 };
const TERMINAL = { initial: 240, min: 80, max: 1200 };
const AGENT = { initial: 360, min: 260, max: 800 };

/** The open-workspace layout: explorer | viewer (or diff) over terminal | the changes and agent column. */
export function Workbench() {
  const [sidebar, setSidebar] = useStoredSize('sidebar', SIDEBAR.initial, SIDEBAR.min, SIDEBAR.max);
  const [terminal, setTerminal] = useStoredSize('terminal', TERMINAL.initial, TERMINAL.min, TERMINAL.max);
  const [agent, setAgent] = useStoredSize('agent', AGENT.initial, AGENT.min, AGENT.max);

  return (
    <div className="workbench">
      <aside className="sidebar" style={{ width: sidebar }}>
        <Sidebar />
      </aside>
      <Splitter axis="col" size={sidebar} onResize={setSidebar} direction={1} onReset={() => setSidebar(SIDEBAR.initial)} label="Resize explorer" />
      <section className="center">
        <div className="center-viewer">
          <FileViewer />
          <DiffPane />
        </div>
        <Splitter axis="row" size={terminal} onResize={setTerminal} direction={-1} onReset={() => setTerminal(TERMINAL.initial)} label="Resize terminal" />
        <div className="center-terminal" style={{ height: terminal }}>
          <TerminalPane />
        </div>
      </section>
      <Splitter axis="col" size={agent} onResize={setAgent} direction={-1} onReset={() => setAgent(AGENT.initial)} label="Resize changes panel" />
      <AgentPanelSlot width={agent} />
    </div>
  );
}
