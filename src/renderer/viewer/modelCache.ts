import type { monaco } from './monacoSetup';

type Model = monaco.editor.ITextModel;
type ViewState = monaco.editor.ICodeEditorViewState | null;

export interface Entry {
  model: Model;
  viewState: ViewState;
  /** The file's text on disk that the buffer is based on: what a save is merged against. */
  base: string;
  /** The model's version when it last matched the disk; another version means unsaved edits. */
  savedVersion: number;
}

/** The buffer's text as a save compares it: LF line breaks, no BOM (Monaco drops the BOM itself). */
export const plain = (text: string): string => (text.startsWith('\uFEFF') ? text.slice(1) : text).replace(/\r\n/g, '\n');

const textOf = (m: Model): string => plain(m.getValue());

/** The buffer holds edits the disk does not have. */
export const isDirty = (e: Entry): boolean => e.model.getAlternativeVersionId() !== e.savedVersion;

/**
 * One Monaco model per recently viewed file, least recently used first out. Keeping a few
 * means flipping between files restores their scroll and folding; keeping all would hold
 * every file ever opened in memory. A model with unsaved edits is never dropped.
 */
export class ModelCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly create: (key: string, content: string, language: string) => Model,
    private readonly max = 12,
  ) {}

  /**
   * The model for `key` showing the file's disk text `content`, created or refreshed, and marked
   * most recent. A buffer with unsaved edits keeps them: its base stays what they were made on,
   * so the save merges them with the disk's change (unless the disk caught up with them).
   */
  acquire(key: string, content: string, language: string, setLanguage: (m: Model, l: string) => void): Entry {
    let entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      const same = textOf(entry.model) === plain(content);
      const dirty = isDirty(entry);
      // A file changed on disk: replace the text but keep the model (and its view state).
      if (!dirty && !same) entry.model.setValue(content);
      if (!dirty || same) this.markSaved(entry, content);
      if (entry.model.getLanguageId() !== language) setLanguage(entry.model, language);
    } else {
      const model = this.create(key, content, language);
      entry = { model, viewState: null, base: content, savedVersion: model.getAlternativeVersionId() };
    }
    this.entries.set(key, entry);
    this.evict(entry);
    return entry;
  }

  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  /** The buffer now matches the disk, which holds `content`. */
  markSaved(entry: Entry, content: string): void {
    entry.base = content;
    entry.savedVersion = entry.model.getAlternativeVersionId();
  }

  saveViewState(key: string, viewState: ViewState): void {
    const entry = this.entries.get(key);
    if (entry) entry.viewState = viewState;
  }

  /** Forgets a file's model (its tab closed), unsaved edits included. */
  drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.model.dispose();
    this.entries.delete(key);
  }

  dispose(): void {
    for (const { model } of this.entries.values()) model.dispose();
    this.entries.clear();
  }

  private evict(keep: Entry): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.max) return;
      if (entry === keep || isDirty(entry)) continue;
      entry.model.dispose();
      this.entries.delete(key);
    }
  }
}
