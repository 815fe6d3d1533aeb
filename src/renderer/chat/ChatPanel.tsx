import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { ApprovalQueue } from '../approvals/ApprovalQueue';
import { PlusIcon } from '../app/icons';
import { SettingsDialog } from '../settings/SettingsDialog';
import { useApp, type ChatItem } from '../store';
import { InstructionChips } from './InstructionChips';
import { Markdown } from './Markdown';
import { ToolCard } from './ToolCard';
import { UserMessage } from './UserMessage';
import './chat.css';

function Item({ item }: { item: ChatItem }) {
  switch (item.kind) {
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

function SessionBar() {
  const sessions = useApp((s) => s.chatSessions);
  const current = useApp((s) => s.chatSessionId);
  const open = useApp((s) => s.openChatSession);
  const create = useApp((s) => s.newChatSession);
  const rename = useApp((s) => s.renameChatSession);
  const remove = useApp((s) => s.deleteChatSession);
  const openSettings = useApp((s) => s.openSettings);
  const [renaming, setRenaming] = useState<string | null>(null);
  const title = sessions.find((s) => s.id === current)?.title ?? '';
  return (
    <div className="chat-sessions">
      {renaming !== null && current ? (
        <input
          className="text-input chat-rename"
          autoFocus
          value={renaming}
          aria-label="Session title"
          onChange={(e) => setRenaming(e.target.value)}
          onBlur={() => setRenaming(null)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              void rename(current, renaming);
              setRenaming(null);
            } else if (e.key === 'Escape') setRenaming(null);
          }}
        />
      ) : (
        <select className="chat-session-select" aria-label="Session" data-testid="chat-session" value={current ?? ''} onChange={(e) => e.target.value && void open(e.target.value)}>
          {!current && <option value="">New session</option>}
          {sessions.map((s) => (
            <option key={s.id} value={s.id}>
              {s.title}
              {s.running ? ' (running)' : ''}
            </option>
          ))}
        </select>
      )}
      <button type="button" className="icon-btn" title="New session" aria-label="New session" data-testid="chat-new-session" onClick={() => void create()}>
        <PlusIcon size={14} />
      </button>
      {current && (
        <>
          <button type="button" className="icon-btn chat-text-btn" title="Rename session" onClick={() => setRenaming(title)}>
            ✎
          </button>
          <button type="button" className="icon-btn chat-text-btn" title="Delete session" onClick={() => void remove(current)}>
            ✕
          </button>
        </>
      )}
      <button type="button" className="icon-btn chat-text-btn" title="Model settings" aria-label="Model settings" data-testid="settings-open" onClick={openSettings}>
        ⚙
      </button>
    </div>
  );
}

function Composer() {
  const running = useApp((s) => s.chatRunning);
  const send = useApp((s) => s.sendChat);
  const stop = useApp((s) => s.stopChat);
  const usage = useApp((s) => s.chatUsage);
  const total = useApp((s) => s.chatUsageTotal);
  const editsMode = useApp((s) => s.editsMode);
  const setEditsMode = useApp((s) => s.setEditsMode);
  const [text, setText] = useState('');
  const submit = () => {
    if (!text.trim() || running) return;
    void send(text);
    setText('');
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };
  return (
    <div className="chat-composer">
      <textarea
        className="chat-input"
        data-testid="chat-input"
        rows={3}
        placeholder="Ask the agent… (Enter to send, Shift+Enter for a new line)"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKey}
      />
      <div className="chat-composer-row">
        <span className="chat-usage" data-testid="chat-usage" title="Tokens of the last model call (prompt + completion); total for this session">
          {usage ? `${usage.prompt_tokens.toLocaleString()} + ${usage.completion_tokens.toLocaleString()} tokens · ${total.toLocaleString()} total` : running ? 'Working…' : ''}
        </span>
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
        {running ? (
          <button type="button" className="btn" data-testid="chat-stop" onClick={() => void stop()}>
            Stop
          </button>
        ) : (
          <button type="button" className="btn btn-primary" data-testid="chat-send" disabled={!text.trim()} onClick={submit}>
            Send
          </button>
        )}
      </div>
    </div>
  );
}

/** What the last undo or redo did, until dismissed or the next one. */
function UndoNotice() {
  const notice = useApp((s) => s.undoNotice);
  const dismiss = useApp((s) => s.dismissUndoNotice);
  if (!notice) return null;
  return (
    <div className="chat-undo-notice" role="status" data-testid="undo-notice">
      <span>{notice}</span>
      <button type="button" className="icon-btn" aria-label="Dismiss" onClick={dismiss}>
        ✕
      </button>
    </div>
  );
}

function NoModel() {
  const settings = useApp((s) => s.llmSettings);
  const openSettings = useApp((s) => s.openSettings);
  if (!settings || settings.configured) return null;
  const found = settings.detected[0];
  return (
    <div className="chat-no-model">
      <p>No model is connected.</p>
      <p className="muted">
        Point Loupe at any OpenAI-compatible endpoint (OpenAI, Ollama, LM Studio, llama.cpp, vLLM, OpenRouter).
        {found ? ` ${found.name} is running at ${found.base_url}.` : ''}
      </p>
      <button type="button" className="btn btn-primary" onClick={openSettings}>
        Connect a model
      </button>
    </div>
  );
}

export function ChatPanel() {
  const items = useApp((s) => s.chatItems);
  const listRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  useLayoutEffect(() => {
    const el = listRef.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [items]);
  useEffect(() => {
    const el = listRef.current;
    if (!el) return;
    const onScroll = () => (stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40);
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  }, []);
  return (
    <div className="chat-panel" data-testid="chat">
      <SessionBar />
      <InstructionChips />
      <div className="chat-list" ref={listRef}>
        {items.length === 0 && <NoModel />}
        {items.map((it) => (
          <Item key={it.id} item={it} />
        ))}
      </div>
      <UndoNotice />
      <ApprovalQueue />
      <Composer />
      <SettingsDialog />
    </div>
  );
}
