import { useState } from 'react';
import type { LlmSettingsView, ModelPreset } from '../../shared/contract';
import { useApp } from '../store';
import './context.css';

/**
 * With no model, the chat's first words: local servers found running (one click), presets for
 * the common providers and local servers, a key field only where the provider needs one, and
 * "Test connection", which lists the models, asks the chosen one a tiny question and, when it
 * answers, saves the settings, so Send works without opening any dialog.
 */
export function ConnectModel() {
  const settings = useApp((s) => s.llmSettings);
  if (!settings || settings.configured) return null;
  return <ConnectForm settings={settings} />;
}

function ConnectForm({ settings }: { settings: LlmSettingsView }) {
  const connect = useApp((s) => s.connectModel);
  const openSettings = useApp((s) => s.openSettings);
  const [preset, setPreset] = useState<ModelPreset | null>(null);
  const [baseUrl, setBaseUrl] = useState(settings.base_url);
  const [apiKey, setApiKey] = useState('');
  const [model, setModel] = useState(settings.model);
  const [models, setModels] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; message: string } | null>(null);

  const choose = (p: ModelPreset) => {
    setPreset(p);
    setBaseUrl(p.base_url);
    setModels([]);
    setModel('');
    setResult(null);
  };
  const test = async (probe: { base_url: string; model?: string; api_key?: string }) => {
    setBusy(true);
    setResult(null);
    const r = await connect(probe);
    setBusy(false);
    setResult(r);
    if (r.models.length) setModels(r.models);
    if (!probe.model && r.models[0]) setModel(r.models[0]);
  };
  const needsKey = preset?.needs_key ?? false;
  return (
    <div className="connect-model" data-testid="connect-model">
      <div className="connect-title">Connect a model</div>
      <p className="muted">Loupe works with any OpenAI-compatible server. Pick one; the settings are saved once the model answers.</p>
      {settings.detected.length > 0 && (
        <div className="connect-found" data-testid="connect-detected">
          <span className="muted">Running on this machine:</span>
          {settings.detected.map((d) => (
            <button
              key={d.base_url}
              type="button"
              className="btn btn-primary"
              data-testid="connect-detected-server"
              disabled={busy}
              title={`${d.base_url}${d.models.length ? ` — ${d.models.slice(0, 8).join(', ')}` : ''}`}
              onClick={() => {
                setPreset(null);
                setBaseUrl(d.base_url);
                setModel(d.models[0] ?? '');
                void test({ base_url: d.base_url, ...(d.models[0] ? { model: d.models[0] } : {}) });
              }}
            >
              Use {d.name}
              {d.models[0] ? ` · ${d.models[0]}` : ''}
            </button>
          ))}
        </div>
      )}
      <div className="connect-presets" role="radiogroup" aria-label="Providers and local servers">
        {settings.presets.map((p) => (
          <button
            key={p.id}
            type="button"
            role="radio"
            aria-checked={preset?.id === p.id}
            className={preset?.id === p.id ? 'connect-preset active' : 'connect-preset'}
            data-testid="connect-preset"
            data-preset={p.id}
            title={p.base_url}
            onClick={() => choose(p)}
          >
            {p.name}
            <span className="connect-preset-kind">{p.local ? 'local' : 'key'}</span>
          </button>
        ))}
      </div>
      {preset && (
        <form
          className="connect-form"
          onSubmit={(e) => {
            e.preventDefault();
            void test({ base_url: baseUrl, ...(model.trim() ? { model: model.trim() } : {}), ...(apiKey ? { api_key: apiKey } : {}) });
          }}
        >
          <label>
            Base URL
            <input className="text-input" data-testid="connect-base-url" value={baseUrl} spellCheck={false} onChange={(e) => setBaseUrl(e.target.value)} />
          </label>
          {needsKey && (
            <label>
              API key
              <input
                className="text-input"
                type="password"
                autoComplete="off"
                data-testid="connect-api-key"
                value={apiKey}
                placeholder={settings.has_api_key ? 'A key is saved; type to replace it' : `Your ${preset.name} key`}
                onChange={(e) => setApiKey(e.target.value)}
              />
            </label>
          )}
          <label>
            Model
            {models.length > 0 ? (
              <select className="text-input" data-testid="connect-model-name" value={model} onChange={(e) => setModel(e.target.value)}>
                {models.map((m) => (
                  <option key={m} value={m}>
                    {m}
                  </option>
                ))}
              </select>
            ) : (
              <input className="text-input" data-testid="connect-model-name" value={model} placeholder="Listed by Test connection" spellCheck={false} onChange={(e) => setModel(e.target.value)} />
            )}
          </label>
          <div className="connect-actions">
            <button type="submit" className="btn btn-primary" data-testid="connect-test" disabled={busy || !baseUrl.trim() || (needsKey && !apiKey && !settings.has_api_key)}>
              {busy ? 'Testing…' : 'Test connection'}
            </button>
            <button type="button" className="link-btn" onClick={openSettings}>
              More settings…
            </button>
          </div>
        </form>
      )}
      {result && (
        <div className={result.ok ? 'settings-ok' : 'settings-fail'} role="status" data-testid="connect-result" data-ok={String(result.ok)}>
          {result.message}
        </div>
      )}
    </div>
  );
}
