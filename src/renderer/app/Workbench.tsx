import { useEffect, useRef } from 'react';
import { Group, Panel, Separator, useDefaultLayout, usePanelRef } from 'react-resizable-panels';
import { diffPane } from '../review/diffLoad';
import { useApp } from '../store';
import { TerminalPane } from '../terminal/TerminalPane';
import { Sidebar } from '../tree/Sidebar';
import { FileViewer } from '../viewer/FileViewer';
import { AgentPanelSlot } from './AgentPanelSlot';
import { LoadedView } from './LoadedView';
import { useAfterFirstFrame } from './useAfterFirstFrame';

/** The diff view, once a diff is open (its code is a chunk of its own). */
function DiffSlot() {
  const open = useApp((s) => s.diff !== null);
  return open ? <LoadedView view={diffPane} what="diff view" /> : null;
}

/** Sizes and grips are kept per browser profile: layout is a preference of the person, not of the folder. */
const storage: Pick<Storage, 'getItem' | 'setItem'> = {
  getItem: (k) => {
    try {
      return localStorage.getItem(k);
    } catch {
      return null;
    }
  },
  setItem: (k, v) => {
    try {
      localStorage.setItem(k, v);
    } catch {
      // Storage can be unavailable (privacy modes); the layout then lasts one session.
    }
  },
};

/**
 * The open-workspace layout: explorer | viewer (or diff) over terminal | the changes and agent
 * column. Every panel resizes, collapses by dragging past its minimum, and keeps its size; the
 * agent column also follows the top bar's toggle, so no window width can hide the agent.
 */
export function Workbench() {
  const columns = useDefaultLayout({ id: 'loupe.layout.columns', storage });
  const rows = useDefaultLayout({ id: 'loupe.layout.center', storage });
  const agentRef = usePanelRef();
  const agentOpen = useApp((s) => s.agentColumnOpen);
  const setAgentOpen = useApp((s) => s.setAgentColumnOpen);
  const rest = useAfterFirstFrame();

  // Only a change of the wish moves the panel: on mount the remembered layout wins, and the
  // panel's first onResize tells the store what it is.
  const wished = useRef(agentOpen);
  useEffect(() => {
    const panel = agentRef.current;
    if (!panel || wished.current === agentOpen) return;
    wished.current = agentOpen;
    if (agentOpen && panel.isCollapsed()) panel.expand();
    else if (!agentOpen && !panel.isCollapsed()) panel.collapse();
  }, [agentOpen, agentRef]);

  return (
    <Group orientation="horizontal" className="workbench" id="workbench" defaultLayout={columns.defaultLayout} onLayoutChanged={columns.onLayoutChanged}>
      <Panel id="layout-sidebar" className="sidebar" defaultSize={240} minSize={150} maxSize="45%" collapsible groupResizeBehavior="preserve-pixel-size">
        <Sidebar />
      </Panel>
      <Separator className="splitter splitter-col" aria-label="Resize explorer" />
      <Panel id="layout-center" className="center" minSize={160}>
        <Group orientation="vertical" id="center" defaultLayout={rows.defaultLayout} onLayoutChanged={rows.onLayoutChanged}>
          <Panel id="layout-viewer" className="center-viewer" minSize={60}>
            {rest && <FileViewer />}
            {rest && <DiffSlot />}
          </Panel>
          <Separator className="splitter splitter-row" aria-label="Resize terminal" />
          <Panel id="layout-terminal" className="center-terminal" defaultSize={240} minSize={80} collapsible groupResizeBehavior="preserve-pixel-size">
            {rest && <TerminalPane />}
          </Panel>
        </Group>
      </Panel>
      <Separator className="splitter splitter-col" aria-label="Resize agent column" />
      <Panel
        id="layout-agent"
        panelRef={agentRef}
        defaultSize={360}
        minSize={260}
        maxSize="70%"
        collapsible
        groupResizeBehavior="preserve-pixel-size"
        onResize={(size) => {
          wished.current = size.inPixels > 0;
          setAgentOpen(wished.current);
        }}
      >
        {rest && <AgentPanelSlot />}
      </Panel>
    </Group>
  );
}
