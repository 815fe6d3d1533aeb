import { useState, type KeyboardEvent } from 'react';
import type { McpServerConfigView, McpServerView } from '../../shared/contract';
import { useApp } from '../store';
import { statusWords } from './mcpStatus';
import { joinWords, splitWords } from './shellWords';

/**
 * The folder's MCP servers (the person's and the repository's) with their status, their tools,
 * Restart and Disable; the person's own are added, edited and removed here (their settings), a
 * repository's in its own file.
 */
export function McpServersSection() {
  const servers = useApp((s) => s.mcpServers);
  const error = useApp((s) => s.mcpError);
  const [adding, setAdding] = useState(false);
  return (
    <div className="settings-mcp" data-testid="settings-mcp">
      <div className="settings-title settings-section mcp-title">
        <span>MCP servers</span>
        <span className="spacer" />
        {!adding && (
          <button type="button" className="btn btn-sm" data-testid="mcp-server-add" onClick={() => setAdding(true)}>
            Add server
          </button>
        )}
      </div>
      {error && <div className="settings-fail">{error}</div>}
      {adding && <McpServerForm name="" config={null} onDone={() => setAdding(false)} />}
      {!servers.length && !adding && <div className="muted settings-note">None yet. A server gives the agent its tools; yours start in every folder.</div>}
      <ul className="mcp-list">
        {servers.map((v) => (
          <McpServerRow key={v.name} server={v} />
        ))}
      </ul>
    </div>
  );
}

function McpServerRow({ server: v }: { server: McpServerView }) {
  const restart = useApp((s) => s.restartMcpServer);
  const setDisabled = useApp((s) => s.setMcpServerDisabled);
  const remove = useApp((s) => s.removeMcpServer);
  const openFilePath = useApp((s) => s.openFilePath);
  const closeSettings = useApp((s) => s.closeSettings);
  const [editing, setEditing] = useState(false);
  const [removing, setRemoving] = useState(false);
  if (editing && v.config) {
    return (
      <li className="mcp-server" data-testid="mcp-server" data-server={v.name} data-status={v.status}>
        <McpServerForm name={v.name} config={v.config} onDone={() => setEditing(false)} />
      </li>
    );
  }
  return (
    <li className="mcp-server" data-testid="mcp-server" data-server={v.name} data-status={v.status} {...(v.disabled ? { 'data-disabled': 'true' } : {})}>
      <div className="mcp-head">
        <span className={`mcp-dot ${v.disabled ? 'mcp-off' : `mcp-${v.status}`}`} aria-hidden="true" />
        <strong className="mcp-name">{v.name}</strong>
        <span className="mcp-status" data-testid="mcp-server-status">
          {statusWords(v)}
        </span>
        <span className="spacer" />
        <span className="mcp-actions">
          <button type="button" className="btn btn-sm" data-testid="mcp-server-restart" disabled={!v.restartable} onClick={() => void restart(v.name)}>
            Restart
          </button>
          <button type="button" className="btn btn-sm" data-testid="mcp-server-disable" onClick={() => void setDisabled(v.name, !v.disabled)}>
            {v.disabled ? 'Enable' : 'Disable'}
          </button>
          {v.config && (
            <>
              <button type="button" className="btn btn-sm" data-testid="mcp-server-edit" onClick={() => setEditing(true)}>
                Edit
              </button>
              <button type="button" className="btn btn-sm" data-testid="mcp-server-remove" aria-expanded={removing} onClick={() => setRemoving(!removing)}>
                Remove
              </button>
            </>
          )}
        </span>
      </div>
      <div className="muted mcp-target" title={v.file}>
        <code>{v.target}</code> · {v.source === 'user' ? 'your settings' : v.file}
        {v.sandboxed === true && ' · sandboxed'}
        {v.sandboxed === false && ' · outside the sandbox'}
        {v.source === 'project' && (
          <>
            {' · '}
            <button
              type="button"
              className="link-btn"
              data-testid="mcp-server-open-file"
              title={`A repository's server is changed in its own file: ${v.file}`}
              onClick={() => {
                closeSettings();
                void openFilePath(v.file);
              }}
            >
              Open {v.file}
            </button>
          </>
        )}
      </div>
      {removing && (
        <div className="mcp-remove" role="alertdialog" aria-label={`Remove ${v.name}?`}>
          <span>Remove &ldquo;{v.name}&rdquo; from your settings? It stops, in every folder.</span>
          <button type="button" className="btn btn-sm btn-danger" data-testid="mcp-server-remove-confirm" autoFocus onClick={() => void remove(v.name)}>
            Remove
          </button>
          <button type="button" className="btn btn-sm" onClick={() => setRemoving(false)}>
            Cancel
          </button>
        </div>
      )}
      {v.detail && (
        <div className={v.status === 'failed' ? 'settings-fail mcp-detail' : 'muted mcp-detail'} data-testid="mcp-server-detail">
          {v.detail}
        </div>
      )}
      {v.status === 'failed' && v.stderr.length > 0 && (
        <pre className="mcp-stderr" data-testid="mcp-server-stderr">
          {v.stderr.slice(-8).join('\n')}
        </pre>
      )}
      {v.sign_in_url && (
        <a href={v.sign_in_url} target="_blank" rel="noreferrer">
          Sign in
        </a>
      )}
      {v.tool_details.length > 0 && (
        <details className="mcp-tools" data-testid="mcp-server-tools">
          <summary>
            {v.tool_details.length} tool{v.tool_details.length === 1 ? '' : 's'}
          </summary>
          <ul>
            {v.tool_details.map((t) => (
              <li key={t.name} data-testid="mcp-server-tool" data-tool={t.name}>
                <code>{t.name}</code>
                {t.description && <span className="mcp-tool-description">{t.description}</span>}
              </li>
            ))}
          </ul>
        </details>
      )}
    </li>
  );
}

/** A name and a value as the form edits it; `hidden`: a saved value the host does not show, kept while left empty. */
interface Pair {
  name: string;
  value: string;
  hidden: boolean;
}

const pairsOf = (list: McpServerConfigView['env']): Pair[] => list.map((p) => ({ name: p.name, value: p.value ?? '', hidden: p.value === null }));
const pairsOut = (list: Pair[]) => list.filter((p) => p.name.trim() || p.value).map((p) => ({ name: p.name.trim(), value: p.hidden && !p.value ? null : p.value }));

/** Adds (`config` null) or edits one of the person's own servers: a command (stdio) or a URL. */
function McpServerForm({ name: initialName, config, onDone }: { name: string; config: McpServerConfigView | null; onDone(): void }) {
  const save = useApp((s) => s.saveMcpServer);
  const [name, setName] = useState(initialName);
  const [kind, setKind] = useState<'stdio' | 'url'>(config && config.transport !== 'stdio' ? 'url' : 'stdio');
  const [commandText, setCommandText] = useState(config?.command ? joinWords([config.command, ...(config.args ?? [])]) : '');
  const [env, setEnv] = useState<Pair[]>(() => pairsOf(config?.env ?? []));
  const [hosts, setHosts] = useState((config?.network_hosts ?? []).join(', '));
  const [outside, setOutside] = useState(config?.sandbox === false);
  const [cwd, setCwd] = useState(config?.cwd ?? '');
  const [url, setUrl] = useState(config?.url ?? '');
  const [sse, setSse] = useState(config?.transport === 'sse');
  const [headers, setHeaders] = useState<Pair[]>(() => pairsOf(config?.headers ?? []));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    let server: McpServerConfigView;
    if (kind === 'stdio') {
      let words: string[];
      try {
        words = splitWords(commandText);
      } catch (err) {
        return setError(`The command line: ${(err as Error).message}`);
      }
      server = {
        transport: 'stdio',
        command: words[0] ?? '',
        args: words.slice(1),
        ...(cwd.trim() ? { cwd: cwd.trim() } : {}),
        network_hosts: hosts.split(/[\s,]+/).filter(Boolean),
        ...(outside ? { sandbox: false } : {}),
        env: pairsOut(env),
        headers: [],
      };
    } else server = { transport: sse ? 'sse' : 'http', url: url.trim(), env: [], headers: pairsOut(headers) };
    setBusy(true);
    const failed = await save(name.trim(), config ? initialName : null, server);
    setBusy(false);
    if (failed) setError(failed);
    else onDone();
  };
  // Inside the settings dialog's own form: Enter saves this server (not the model settings), Esc closes only this.
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Enter' && e.target instanceof HTMLInputElement && e.target.type !== 'checkbox' && e.target.type !== 'radio') {
      e.preventDefault();
      void submit();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onDone();
    }
  };
  return (
    <div className="mcp-form" data-testid="mcp-form" onKeyDown={onKey} role="group" aria-label={config ? `Edit the MCP server ${initialName}` : 'Add an MCP server'}>
      <div className="mcp-form-title">{config ? `Edit ${initialName}` : 'Add an MCP server'} · saved in your settings, for every folder</div>
      <Field label="Name" testId="mcp-form-name" value={name} onChange={setName} placeholder="memory" autoFocus />
      <div className="mcp-kind" role="radiogroup" aria-label="How Loupe reaches it">
        <label>
          <input type="radio" name="mcp-kind" data-testid="mcp-form-kind-stdio" checked={kind === 'stdio'} onChange={() => setKind('stdio')} />
          A command Loupe starts (stdio)
        </label>
        <label>
          <input type="radio" name="mcp-kind" data-testid="mcp-form-kind-url" checked={kind === 'url'} onChange={() => setKind('url')} />
          A URL (remote server)
        </label>
      </div>
      {kind === 'stdio' ? (
        <>
          <Field label="Command" testId="mcp-form-command" value={commandText} onChange={setCommandText} placeholder="npx -y @modelcontextprotocol/server-memory" />
          <Pairs label="Environment" what="variable" testId="mcp-form-env" pairs={env} onChange={setEnv} placeholder={['TOKEN', 'value or ${env:TOKEN}']} />
          <Field label="Network" testId="mcp-form-hosts" value={hosts} onChange={setHosts} placeholder="none (no network); or api.example.com, …" />
          <Field label="Folder" testId="mcp-form-cwd" value={cwd} onChange={setCwd} placeholder="the workspace" />
          <label className="settings-check">
            <input type="checkbox" data-testid="mcp-form-outside" checked={outside} onChange={(e) => setOutside(e.target.checked)} />
            <span>
              Run it outside the OS sandbox
              <span className="muted settings-note">It can then read and write what you can and reach any network. Inside, it writes only in the workspace and reaches only the hosts above.</span>
            </span>
          </label>
        </>
      ) : (
        <>
          <Field label="URL" testId="mcp-form-url" value={url} onChange={setUrl} placeholder="https://mcp.example.com/mcp" />
          <label className="settings-check">
            <input type="checkbox" data-testid="mcp-form-sse" checked={sse} onChange={(e) => setSse(e.target.checked)} />
            <span>It speaks the older HTTP+SSE transport (otherwise streamable HTTP, falling back to SSE)</span>
          </label>
          <Pairs label="Headers" what="header" testId="mcp-form-headers" pairs={headers} onChange={setHeaders} placeholder={['Authorization', 'Bearer ${env:TOKEN}']} />
        </>
      )}
      {error && (
        <div className="settings-fail" data-testid="mcp-form-error" role="alert">
          {error}
        </div>
      )}
      <div className="mcp-form-actions">
        <span className="spacer" />
        <button type="button" className="btn btn-sm" data-testid="mcp-form-cancel" onClick={onDone}>
          Cancel
        </button>
        <button type="button" className="btn btn-sm btn-primary" data-testid="mcp-form-save" disabled={busy} onClick={() => void submit()}>
          {busy ? 'Saving…' : config ? 'Save server' : 'Add server'}
        </button>
      </div>
    </div>
  );
}

/** One labelled line of the form. */
function Field({ label, testId, value, onChange, placeholder, autoFocus }: { label: string; testId: string; value: string; onChange(v: string): void; placeholder: string; autoFocus?: boolean }) {
  return (
    <label className="mcp-field">
      <span>{label}</span>
      <input className="text-input" data-testid={testId} value={value} onChange={(e) => onChange(e.target.value)} placeholder={placeholder} autoFocus={autoFocus} spellCheck={false} />
    </label>
  );
}

/** Name–value rows (environment variables, headers); a saved value the host hides is kept while its field stays empty. */
function Pairs({ label, what, testId, pairs, onChange, placeholder }: { label: string; what: string; testId: string; pairs: Pair[]; onChange(p: Pair[]): void; placeholder: [string, string] }) {
  const set = (i: number, change: Partial<Pair>) => onChange(pairs.map((p, k) => (k === i ? { ...p, ...change } : p)));
  return (
    <div className="mcp-field mcp-pairs" data-testid={testId}>
      <span>{label}</span>
      <div className="mcp-pair-rows">
        {pairs.map((p, i) => (
          <div key={i} className="mcp-pair" data-testid="mcp-form-pair">
            <input className="text-input" aria-label={`${label}: name`} value={p.name} onChange={(e) => set(i, { name: e.target.value })} placeholder={placeholder[0]} spellCheck={false} />
            <input
              className="text-input"
              aria-label={`${label}: value of ${p.name || 'this one'}`}
              value={p.value}
              onChange={(e) => set(i, { value: e.target.value })}
              placeholder={p.hidden ? 'saved, not shown · kept if left empty' : placeholder[1]}
              spellCheck={false}
            />
            <button type="button" className="icon-btn" aria-label={`Remove this ${what}`} title={`Remove this ${what}`} onClick={() => onChange(pairs.filter((_, k) => k !== i))}>
              ✕
            </button>
          </div>
        ))}
        <button type="button" className="link-btn mcp-pair-add" data-testid={`${testId}-add`} onClick={() => onChange([...pairs, { name: '', value: '', hidden: false }])}>
          + Add {what}
        </button>
      </div>
    </div>
  );
}
