import { useRef, useState, type KeyboardEvent } from 'react';
import { modKey } from '../app/platform';
import { ApprovalQueue } from '../approvals/ApprovalQueue';
import { useApp, type ChatItem } from '../store';
import { AttachmentChips } from './AttachmentChips';
import { CompactionNote } from './CompactionNote';
import { ConnectModel } from './ConnectModel';
import { AttachImageButton, attachDropped, attachPasted } from './composerFiles';
import { InstructionChips } from './InstructionChips';
import { useMentions } from './MentionPicker';
import { useSlash } from './SlashPicker';
import { CommandInputs } from './CommandInputs';
import { Markdown, usePreloadMarkdown } from './LazyMarkdown';
import { ModeSwitch } from './ModeSwitch';
import { PlanCard } from './PlanCard';
import { QueuedMessages } from './QueuedMessages';
import { SessionBar } from './SessionBar';
import { SubagentCard } from './SubagentCard';
import { ToolCard } from './ToolCard';
import { HookDecision } from './HookDecision';
import { UsageMeter } from './UsageMeter';
import { UndoNotice } from './UndoNotice';
import { UserMessage } from './UserMessage';
import { useFollowLatest } from './useFollowLatest';
import './chat.css';
import './slash.css';
import { loadable } from '../app/loadable';
import { LoadedView } from '../app/LoadedView';
// Other dialogs (the trust prompt, the approval cards, the connect card) share its styles.
import '../settings/settings.css';

// The settings dialog (model table, MCP servers, hooks) is code for when it is opened: the first
// screen does not evaluate it.
const settingsDialog = loadable(() => import('../settings/SettingsDialog'));

function LazySettingsDialog() {
  const open = useApp((s) => s.settingsOpen);
  return open ? <LoadedView view={settingsDialog} what="settings" /> : null;
}

/**
 * A conversation's items; a tool call that started a subagent is drawn as that subagent's card
 * (which holds its own conversation, drawn the same way).
 */
function Items({ items }: { items: ChatItem[] }) {
  const delegated = new Set(items.flatMap((i) => (i.kind === 'subagent' ? [i.callId] : [])));
  return (
    <>
      {items.map((it) => (it.kind === 'tool' && delegated.has(it.id) ? null : <Item key={it.id} item={it} />))}
    </>
  );
}

const renderItems = (items: ChatItem[]) => <Items items={items} />;

function Item({ item }: { item: ChatItem }) {
  switch (item.kind) {
    case 'subagent':
      return <SubagentCard item={item} renderItems={renderItems} />;
    case 'user':
      return <UserMessage item={item} />;
    case 'assistant':
      return (
        <div className={`chat-msg assistant${item.streaming ? ' streaming' : ''}`} data-testid="chat-message" data-role="assistant">
          <Markdown text={item.text} streaming={item.streaming} />
        </div>
      );
    case 'reasoning':
      // Collapsed: the model's thinking is there to check, not to read as the answer.
      return (
        <details className="chat-reasoning" data-testid="chat-reasoning">
          <summary>{item.streaming ? 'Thinking…' : 'Reasoning'}</summary>
          <div className="chat-reasoning-text">{item.text}</div>
        </details>
      );
    case 'tool':
      return <ToolCard item={item} />;
    case 'compaction':
      return <CompactionNote item={item} />;
    case 'plan':
      return <PlanCard item={item} />;
    case 'hook':
      return <HookDecision mark={item.mark} />;
    case 'error':
      return (
        <div className="chat-error" role="alert" data-testid="chat-error">
          <strong>{item.code}</strong> {item.message}
        </div>
      );
    default:
      return <div className="chat-note">{item.text}</div>;
  }
}

function Composer() {
  const running = useApp((s) => s.chatRunning);
  const send = useApp((s) => s.sendChat);
  const stop = useApp((s) => s.stopChat);
  // Another agent's session needs no model of Loupe's: the agent brings its own.
  const configured = useApp((s) => s.llmSettings?.configured !== false || Boolean(s.chatSessions.find((x) => x.id === s.chatSessionId)?.agent));
  const attached = useApp((s) => s.chatAttachments.length > 0);
  const attachImages = useApp((s) => s.attachImages);
  const editsMode = useApp((s) => s.editsMode);
  const setEditsMode = useApp((s) => s.setEditsMode);
  const answerFirstApproval = useApp((s) => s.answerFirstApproval);
  const [text, setText] = useState('');
  const inputRef = useRef<HTMLTextAreaElement>(null);
  const mentions = useMentions(text, setText, inputRef);
  const slash = useSlash(text, setText, inputRef);
  const last = useApp((s) => {
    for (let i = s.chatItems.length - 1; i >= 0; i--) {
      const it = s.chatItems[i];
      if (it.kind === 'user') return it.text;
    }
    return '';
  });
  // While the agent works, a message is queued (shown pending above), not refused.
  const submit = () => {
    if (!text.trim() || !configured) return;
    void send(text);
    // Refused with attachments while the agent works (they are not queued): the words stay.
    if (!(running && attached)) setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (slash.onKeyDown(e) || mentions.onKeyDown(e)) return;
    // The queue's keys work from here too, as its title says: Ctrl+Enter allows the first card
    // once (never a risky one), Esc denies it. With no card waiting they do what they did.
    const approvalKey = e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey ? 'once' : e.key === 'Escape' && !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey ? 'deny' : null;
    if (approvalKey && !e.nativeEvent.isComposing && answerFirstApproval(approvalKey)) {
      e.preventDefault();
      return;
    }
    if (e.key === 'ArrowUp' && !text && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      // As in a shell: the last prompt back, to fix or send again.
      if (last) {
        e.preventDefault();
        setText(last);
      }
      return;
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };
  return (
    <div className="chat-composer">
      <AttachmentChips />
      <CommandInputs />
      {slash.picker}
      {mentions.picker}
      <textarea
        ref={inputRef}
        className="chat-input"
        data-testid="chat-input"
        rows={3}
        placeholder={running ? 'The agent is working: Enter queues a message (Send now gives it at its next step)' : 'Ask the agent… (@ attaches a file, / runs a command or skill, Enter sends, Shift+Enter for a new line)'}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          // The caret as typed, before any selection event: the pickers read what precedes it.
          mentions.onCaret(e);
          slash.onCaret(e);
        }}
        onKeyDown={onKey}
        onSelect={(e) => {
          mentions.onCaret(e);
          slash.onCaret(e);
        }}
        onPaste={(e) => attachPasted(e, attachImages)}
        onDragOver={(e) => e.dataTransfer.types.includes('Files') && e.preventDefault()}
        onDrop={(e) => attachDropped(e, attachImages)}
      />
      <div className="chat-composer-row">
        <UsageMeter />
        {/* A group of its own: when the row is too narrow it wraps below the meter, which stays whole. */}
        <div className="chat-composer-actions">
          <AttachImageButton attach={attachImages} />
          {editsMode && (
            <button
              type="button"
              className={editsMode === 'ask' ? 'chat-edits-mode ask' : 'chat-edits-mode'}
              data-testid="chat-edits-mode"
              aria-pressed={editsMode === 'ask'}
              title={
                editsMode === 'ask'
                  ? 'Each edit waits for your approval, with its diff, before it is written. Click to let edits through (you review them afterwards).'
                  : 'Edits are written at once and reviewed afterwards in Changes. Click to approve each edit before it is written.'
              }
              onClick={() => void setEditsMode(editsMode === 'ask' ? 'review' : 'ask')}
            >
              {editsMode === 'ask' ? 'Ask before edits' : 'Auto-apply edits'}
            </button>
          )}
          <ModeSwitch />
          {running ? (
            <>
              <button type="button" className="btn" data-testid="chat-queue" disabled={!text.trim()} title="Queue it: it is sent when the agent is done, or at its next tool call with Send now" onClick={submit}>
                Queue
              </button>
              <button type="button" className="btn" data-testid="chat-stop" onClick={() => void stop()}>
                Stop
              </button>
            </>
          ) : (
            <button type="button" className="btn btn-primary" data-testid="chat-send" disabled={!text.trim() || !configured} title={configured ? undefined : 'Connect a model first'} onClick={submit}>
              Send
            </button>
          )}
        </div>
      </div>
    </div>
  );
}

/** An empty conversation: what to ask and the keys that help, once a model is connected. */
function EmptyHints() {
  const configured = useApp((s) => Boolean(s.llmSettings?.configured));
  const agent = useApp((s) => s.agents.find((a) => a.name === s.chatSessions.find((x) => x.id === s.chatSessionId)?.agent));
  if (agent)
    return (
      <div className="chat-hints" data-testid="chat-hints">
        <p>
          {agent.label} does this session&apos;s work, inside Loupe&apos;s sandbox: every file it changes lands in Changes, reversible one by one, and its questions wait in the queue
          here.
        </p>
        <p className="muted">
          <code>{agent.command}</code> · Stop cancels it and ends its processes.
        </p>
      </div>
    );
  if (!configured) return null;
  return (
    <div className="chat-hints" data-testid="chat-hints">
      <p>Ask for a change, a question about this code, or a command to run. Every edit lands in Changes, reversible one by one.</p>
      <ul>
        <li>&ldquo;Add a --verbose flag to the CLI and a test for it&rdquo;</li>
        <li>&ldquo;Why does src/app.ts read the config twice?&rdquo;</li>
        <li>&ldquo;Run the tests and fix what fails&rdquo;</li>
      </ul>
      <p className="muted">
        Enter sends · Shift+Enter new line · ↑ last prompt · {modKey}+P open a file · {modKey}+Shift+F find in files
      </p>
    </div>
  );
}

export function ChatPanel() {
  const items = useApp((s) => s.chatItems);
  const hosted = useApp((s) => Boolean(s.chatSessions.find((x) => x.id === s.chatSessionId)?.agent));
  usePreloadMarkdown();
  const { listRef, atBottom, toLatest } = useFollowLatest(items);
  return (
    <div className="chat-panel" data-testid="chat">
      <SessionBar />
      <InstructionChips />
      <div className="chat-list-wrap">
        <div className="chat-list" ref={listRef}>
          {items.length === 0 && !hosted && <ConnectModel />}
          {items.length === 0 && <EmptyHints />}
          <Items items={items} />
        </div>
        {!atBottom && (
          <button type="button" className="chat-jump" data-testid="jump-to-latest" title="Jump to the latest message" onClick={toLatest}>
            ↓ Latest
          </button>
        )}
      </div>
      <UndoNotice />
      <ApprovalQueue />
      <QueuedMessages />
      <Composer />
      <LazySettingsDialog />
    </div>
  );
}
