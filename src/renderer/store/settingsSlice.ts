import type { EditsModeName, LlmProbe, LlmSettingsView, Params, SandboxStatusView } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

export interface SettingsSlice {
  llmSettings: LlmSettingsView | null;
  settingsOpen: boolean;
  settingsBusy: 'saving' | 'testing' | 'models' | null;
  settingsError: string | null;
  settingsModels: string[];
  settingsTest: { ok: boolean; message: string } | null;
  /** The open project's `edits.mode`; null until known (or with no workspace). */
  editsMode: EditsModeName | null;
  /** Whether the agent's commands run in an OS sandbox here; null until known (or with no workspace). */
  sandboxStatus: SandboxStatusView | null;
  loadSettings(): Promise<void>;
  loadEditsMode(): Promise<void>;
  /** Written to .loupe/config.json at once, not with the model settings' Save. */
  setEditsMode(mode: EditsModeName): Promise<void>;
  openSettings(): void;
  closeSettings(): void;
  saveSettings(values: Params<'settings.save'>): Promise<boolean>;
  loadModels(probe: LlmProbe): Promise<void>;
  testConnection(probe: LlmProbe): Promise<void>;
  /**
   * The "Connect a model" panel's one step: the models are listed (the model picked is the one
   * named, else the first), the model is asked one tiny question, and on success the settings are
   * saved (the key where keys are kept). Says what happened.
   */
  connectModel(probe: LlmProbe): Promise<{ ok: boolean; message: string; models: string[] }>;
}

export const createSettingsSlice: SliceCreator<SettingsSlice> = (set, get, { client }) => ({
  llmSettings: null,
  settingsOpen: false,
  settingsBusy: null,
  settingsError: null,
  settingsModels: [],
  settingsTest: null,
  editsMode: null,
  sandboxStatus: null,

  async loadSettings() {
    try {
      set({ llmSettings: await client.request('settings.get', undefined) });
    } catch (err) {
      set({ settingsError: errorMessage(err) });
    }
  },

  openSettings() {
    set({ settingsOpen: true, settingsError: null, settingsTest: null });
    void get().loadSettings();
    void get().loadEditsMode();
    void get().loadSystemPrompt();
    void get().loadMcpServers();
    void get().loadAgents();
    void get().loadHooks();
    void get().loadSlashCommands();
    void client.request('settings.sandbox', undefined).then(
      (sandboxStatus) => set({ sandboxStatus }),
      () => set({ sandboxStatus: null }),
    );
  },

  async loadEditsMode() {
    try {
      set({ editsMode: (await client.request('settings.editsMode', undefined)).mode });
    } catch {
      set({ editsMode: null });
    }
  },

  async setEditsMode(mode) {
    const before = get().editsMode;
    set({ editsMode: mode, settingsError: null });
    try {
      set({ editsMode: (await client.request('settings.setEditsMode', { mode })).mode });
    } catch (err) {
      set({ editsMode: before, settingsError: errorMessage(err) });
    }
  },

  closeSettings: () => set({ settingsOpen: false }),

  async saveSettings(values) {
    set({ settingsBusy: 'saving', settingsError: null });
    try {
      const saved = await client.request('settings.save', values);
      const facts = saved.model_facts;
      // The meter measures the next call against the saved window: it shows it now, not after that call.
      set((s) => ({
        llmSettings: saved,
        settingsOpen: false,
        ...(s.chatUsage && facts ? { chatUsage: { ...s.chatUsage, context_window: facts.context_window, context_window_source: facts.context_window_source } } : {}),
      }));
      return true;
    } catch (err) {
      set({ settingsError: errorMessage(err) });
      return false;
    } finally {
      set({ settingsBusy: null });
    }
  },

  async loadModels(probe) {
    set({ settingsBusy: 'models', settingsError: null });
    try {
      set({ settingsModels: (await client.request('settings.models', probe)).models });
    } catch (err) {
      set({ settingsError: errorMessage(err), settingsModels: [] });
    } finally {
      set({ settingsBusy: null });
    }
  },

  async connectModel(probe) {
    let models: string[] = [];
    try {
      models = (await client.request('settings.models', probe)).models;
      const model = probe.model?.trim() || models[0];
      if (!model) return { ok: false, message: 'The server answers but lists no model. Load one in it, or type the model’s name.', models };
      const r = await client.request('settings.test', { ...probe, model });
      if (!r.ok) return { ok: false, message: r.error ?? 'The connection failed.', models: r.models.length ? r.models : models };
      const saved = await get().saveSettings({ base_url: probe.base_url ?? '', model, ...(probe.api_key ? { api_key: probe.api_key } : {}) });
      if (!saved) return { ok: false, message: get().settingsError ?? 'The settings could not be saved.', models };
      return { ok: true, message: `Connected to ${model} in ${r.latency_ms} ms${r.reply ? `; it answered “${r.reply.slice(0, 60)}”` : ''}.`, models };
    } catch (err) {
      return { ok: false, message: errorMessage(err), models };
    }
  },

  async testConnection(probe) {
    set({ settingsBusy: 'testing', settingsTest: null, settingsError: null });
    try {
      const r = await client.request('settings.test', probe);
      set({
        settingsTest: { ok: r.ok, message: r.ok ? testedMessage(r) : (r.error ?? 'The connection failed.') },
        ...(r.models.length ? { settingsModels: r.models } : {}),
      });
    } catch (err) {
      set({ settingsTest: { ok: false, message: errorMessage(err) } });
    } finally {
      set({ settingsBusy: null });
    }
  },
});

/** What Test connection found, naming the model it asked (or saying none was chosen yet). */
function testedMessage(r: { latency_ms: number; models: string[]; model?: string; reply?: string }): string {
  const listed = `${r.models.length} model${r.models.length === 1 ? '' : 's'} listed`;
  if (!r.model) return `Connected in ${r.latency_ms} ms — ${listed}; choose one to use.`;
  return `Connected in ${r.latency_ms} ms to ${r.model}${r.reply ? `, which answered “${r.reply.slice(0, 60)}”` : ''} — ${listed}.`;
}
