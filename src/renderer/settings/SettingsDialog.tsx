import { useState } from 'react';
import type { LlmProbe, LlmSettingsView, SandboxStatusView, SystemPromptView } from '../../shared/contract';
import { useApp } from '../store';
import { McpServersSection } from './McpServers';
import { HooksSection } from './Hooks';
import { SkillsCommandsSection } from './SkillsCommands';
import { AgentsSection } from './Agents';
import { ModelTable } from './ModelTable';
import './settings.css';

/** The model settings: endpoint, model (picked from /models or typed), key, context size. */
export default function SettingsDialog() {
  const open = useApp((s) => s.settingsOpen);
  const settings = useApp((s) => s.llmSettings);
  if (!open || !settings) return null;
  return <SettingsForm settings={settings} />;
}

function SettingsForm({ settings }: { settings: LlmSettingsView }) {
  const close = useApp((s) => s.closeSettings);
  const save = useApp((s) => s.saveSettings);
  const loadModels = useApp((s) => s.loadModels);
  const test = useApp((s) => s.testConnection);
  const models = useApp((s) => s.settingsModels);
  const busy = useApp((s) => s.settingsBusy);
  const error = useApp((s) => s.settingsError);
  const result = useApp((s) => s.settingsTest);
  const editsMode = useApp((s) => s.editsMode);
  const setEditsMode = useApp((s) => s.setEditsMode);
  const sandbox = useApp((s) => s.sandboxStatus);
  const systemPrompt = useApp((s) => s.systemPrompt);
  // The form starts from the values as they were when it opened; a refetch does not overwrite typing.
  const [baseUrl, setBaseUrl] = useState(settings.base_url);
  const [model, setModel] = useState(settings.model);
  const [apiKey, setApiKey] = useState('');
  const [context, setContext] = useState(settings.context_tokens ? String(settings.context_tokens) : '');
  const [rows, setRows] = useState(settings.models);
  const probe = (): LlmProbe => ({ base_url: baseUrl, model, ...(apiKey ? { api_key: apiKey } : {}) });
  const submit = () => {
    const n = Number(context);
    void save({
      base_url: baseUrl,
      model,
      ...(apiKey ? { api_key: apiKey } : {}),
      ...(context.trim() && Number.isInteger(n) && n > 0 ? { context_tokens: n } : {}),
      models: rows.filter((r) => r.model.trim()),
    });
  };
  return (
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <form
        className="settings-dialog"
        role="dialog"
        aria-modal="true"
        aria-label="Model settings"
        data-testid="settings-dialog"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
        onKeyDown={(e) => e.key === 'Escape' && close()}
      >
        <div className="settings-title">Model</div>
        <label>
          Base URL
          <input className="text-input" data-testid="settings-base-url" autoFocus value={baseUrl} placeholder="http://127.0.0.1:11434/v1" onChange={(e) => setBaseUrl(e.target.value)} />
        </label>
        {settings.detected.length > 0 && (
          <div className="settings-detected">
            Found:{' '}
            {settings.detected.map((d) => (
              <button
                key={d.base_url}
                type="button"
                className="link-btn"
                onClick={() => {
                  setBaseUrl(d.base_url);
                  if (!model && d.models[0]) setModel(d.models[0]);
                }}
              >
                {d.name} ({d.base_url})
              </button>
            ))}
          </div>
        )}
        <label>
          Model
          <div className="settings-row">
            <input className="text-input" data-testid="settings-model" list="loupe-models" value={model} placeholder="e.g. gpt-4o-mini, qwen2.5-coder" onChange={(e) => setModel(e.target.value)} />
            <button type="button" className="btn" disabled={busy !== null || !baseUrl.trim()} onClick={() => void loadModels(probe())}>
              {busy === 'models' ? 'Fetching…' : 'Fetch models'}
            </button>
          </div>
          <datalist id="loupe-models">
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
        {models.length > 0 && (
          <select className="settings-model-picker" aria-label="Models from the endpoint" value={models.includes(model) ? model : ''} onChange={(e) => e.target.value && setModel(e.target.value)}>
            <option value="">Pick one of {models.length} models…</option>
            {models.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        )}
        <label>
          API key
          <input
            className="text-input"
            type="password"
            autoComplete="off"
            data-testid="settings-api-key"
            value={apiKey}
            placeholder={settings.has_api_key ? 'A key is saved; type to replace it' : 'Not needed for local servers'}
            onChange={(e) => setApiKey(e.target.value)}
          />
        </label>
        {settings.api_key_problem && <div className="settings-fail" data-testid="settings-key-problem">{settings.api_key_problem}</div>}
        {settings.has_api_key && settings.api_key_where && (
          <div className="muted settings-note" data-testid="settings-key-where">
            The key is kept in {settings.api_key_where}.
          </div>
        )}
        <label>
          Context window (tokens)
          <input
            className="text-input"
            inputMode="numeric"
            data-testid="settings-context-tokens"
            value={context}
            placeholder={settings.model_facts?.context_window_source === 'server' ? `${settings.model_facts.context_window} (the server's)` : '32768'}
            title="Used when the server does not say how large the model's window is"
            onChange={(e) => setContext(e.target.value.replace(/[^\d]/g, ''))}
          />
        </label>
        <ModelTable rows={rows} onChange={setRows} model={model} facts={settings.model_facts} />
        {settings.source === 'env' && <div className="muted settings-note">Currently from the environment (OPENAI_BASE_URL, LOUPE_MODEL); saving here overrides it.</div>}
        {settings.endpoint_profile && (
          <div className="muted settings-note" data-testid="settings-endpoint-profile">
            This endpoint: {settings.endpoint_profile}
          </div>
        )}
        {settings.log_file && (
          <div className="muted settings-note" data-testid="settings-log-file">
            Tool crashes and config problems are written to <code>{settings.log_file}</code> (Help › Open Log in the app).
          </div>
        )}
        {result && (
          <div className={result.ok ? 'settings-ok' : 'settings-fail'} data-testid="settings-test-result">
            {result.message}
          </div>
        )}
        {error && <div className="settings-fail">{error}</div>}
        {editsMode && (
          <>
            <div className="settings-title settings-section">This project</div>
            <label className="settings-check">
              <input type="checkbox" data-testid="settings-ask-edits" checked={editsMode === 'ask'} onChange={(e) => void setEditsMode(e.target.checked ? 'ask' : 'review')} />
              <span>
                Ask before every edit
                <span className="muted settings-note">
                  Each change the agent wants to make waits on an approval card showing its diff. Saved at once as <code>edits.mode</code> in .loupe/config.json.
                </span>
              </span>
            </label>
          </>
        )}
        {sandbox && <SandboxLine status={sandbox} />}
        <McpServersSection />
        <AgentsSection />
        <HooksSection />
        <SkillsCommandsSection />
        {systemPrompt && <SystemPromptSection prompt={systemPrompt} />}
        <div className="settings-actions">
          <button type="button" className="btn" disabled={busy !== null || !baseUrl.trim()} onClick={() => void test(probe())}>
            {busy === 'testing' ? 'Testing…' : 'Test connection'}
          </button>
          <span className="spacer" />
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" data-testid="settings-save" disabled={busy !== null}>
            Save
          </button>
        </div>
      </form>
    </div>
  );
}

/** Whether commands run sandboxed, and if not, why and how to change that. */
function SandboxLine({ status }: { status: SandboxStatusView }) {
  return (
    <div className="settings-sandbox" data-testid="settings-sandbox" data-active={String(status.active)}>
      <span>
        Command sandbox: <strong>{status.active ? `on (${status.kind})` : 'off'}</strong>
      </span>
      <span className="muted settings-note">
        {status.active
          ? 'Commands write only in the workspace and reach no network, or with a network rule only the hosts it names (others ask), so most need no approval. Set "sandbox": "off" in .loupe/config.json to ask for each instead.'
          : `${status.reason}; every command without an allow rule asks.`}
        {status.install && <> To get it: <code data-testid="settings-sandbox-install">{status.install}</code></>}
        {status.ignored_off && ' This folder\'s config asks for "sandbox": "off", which applies only once you trust the folder.'}
      </span>
      {status.network_log && status.network_log.length > 0 && (
        <ul className="settings-network-log" data-testid="settings-network-log" aria-label="Hosts sandboxed commands asked for">
          {status.network_log.map((e) => (
            <li key={`${e.at} ${e.host}`} data-allowed={String(e.allowed)} title={e.reason}>
              {e.allowed ? 'reached' : 'refused'} <code>{e.host}</code> by <code>{e.command}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The whole system prompt, as sent with the open session's last request (or as the next one will send it). */
function SystemPromptSection({ prompt }: { prompt: SystemPromptView & { sent: boolean } }) {
  return (
    <details className="settings-system-prompt" data-testid="settings-system-prompt" data-sent={String(prompt.sent)}>
      <summary>
        What the agent is told: the system prompt {prompt.sent ? 'as sent with the last request' : 'as the next request will send it'} ({prompt.text.length.toLocaleString()} characters)
      </summary>
      <pre data-testid="settings-system-prompt-text">{prompt.text}</pre>
    </details>
  );
}
