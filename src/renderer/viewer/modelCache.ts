import type { monaco } from './monacoSetup';

type Model = monaco.editor.ITextModel;
type ViewState = monaco.editor.ICodeEditorViewState | null;

interface Entry {
  model: Model;
  viewState: ViewState;
}

/**
 * One Monaco model per recently viewed file, least recently used first out. Keeping a few
 * means flipping between files restores their scroll and folding; keeping all would hold
 * every file ever opened in memory.
 */
export class ModelCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly create: (key: string, content: string, language: string) => Model,
    private readonly max = 12,
  ) {}

  /** The model for `key` with `content`, created or refreshed, and marked most recent. */
  acquire(key: string, content: string, language: string, setLanguage: (m: Model, l: string) => void): Entry {
    let entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      // A file changed on disk: replace the text but keep the model (and its view state).
      if (entry.model.getValue() !== content) entry.model.setValue(content);
      if (entry.model.getLanguageId() !== language) setLanguage(entry.model, language);
    } else {
      entry = { model: this.create(key, content, language), viewState: null };
    }
    this.entries.set(key, entry);
    this.evict(entry);
    return entry;
  }

  saveViewState(key: string, viewState: ViewState): void {
    const entry = this.entries.get(key);
    if (entry) entry.viewState = viewState;
  }

  dispose(): void {
    for (const { model } of this.entries.values()) model.dispose();
    this.entries.clear();
  }

  private evict(keep: Entry): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.max) return;
      if (entry === keep) continue;
      entry.model.dispose();
      this.entries.delete(key);
    }
  }
}
