import { useEffect, useLayoutEffect, useRef } from 'react';
import { isDirty, ModelCache, plain, type Entry } from './modelCache';
import { monaco, monacoLanguage } from './monacoSetup';
import { setProblemMarkers } from './markers';
import type { FileSaveResult, ProblemView } from '../../shared/contract';
import type { ViewerCommand } from '../store/viewerSlice';

export interface MonacoViewProps {
  /** The workspace root: a command's path under it names its model. */
  root: string;
  /** Workspace-relative path of the file shown. */
  path: string;
  /** Absolute path of the file: names the model, and stays unique across workspaces. */
  absPath: string;
  /** Why the file cannot be edited here; absent when it can. */
  readOnly?: string;
  /** The latest save, overwrite, revert or close the person asked for. */
  command?: ViewerCommand | null;
  /** Whether a file's buffer holds unsaved edits, each time that may have changed. */
  onDirty?: (path: string, dirty: boolean) => void;
  /** Saves the buffer's text (LF) over `base`, the disk text it was made on; null when it did not save. */
  onSave?: (path: string, text: string, base: string, overwrite: boolean) => Promise<FileSaveResult | null>;
  /** Ctrl+S in the editor: asks for a save as the Save button does. */
  onSaveKey?: () => void;
  content: string;
  language: string;
  hidden: boolean;
  /** A line to scroll to and select, once per `seq`. */
  reveal?: { line: number; seq: number };
  /** The language server's problems in this text: squiggles with the message on hover. */
  problems?: readonly ProblemView[];
  /** The lines the person selected (first, last; 1-based), or null when nothing is selected. */
  onSelection?: (lines: [number, number] | null) => void;
}

/**
 * The file viewer's Monaco editor: the person may edit, and Ctrl+S (or Save) writes through the
 * host as their own modification. It is created once and only its model is swapped as files
 * change; loaded lazily so the first paint of the app does not wait for Monaco. Each model
 * remembers the disk text its edits are based on, so a save is merged with what changed on disk.
 */
export default function MonacoView({ root, path, absPath, readOnly, command, onDirty, onSave, onSaveKey, content, language, hidden, reveal, problems, onSelection }: MonacoViewProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const cacheRef = useRef<ModelCache | null>(null);
  const shownRef = useRef<string | null>(null);
  const savingRef = useRef(false);
  // The latest props, read by listeners made once.
  const live = useRef({ path, absPath, readOnly, content, onDirty, onSave, onSaveKey });
  useLayoutEffect(() => {
    live.current = { path, absPath, readOnly, content, onDirty, onSave, onSaveKey };
  });

  useEffect(() => {
    if (editorRef.current || !hostRef.current) return;
    editorRef.current = monaco.editor.create(hostRef.current, {
      model: null,
      readOnly: true,
      // Squiggles are hidden in read-only editors unless asked for: these are the server's problems.
      renderValidationDecorations: 'on',
      theme: 'loupe-dark',
      automaticLayout: true,
      fontFamily: "ui-monospace, 'SF Mono', 'JetBrains Mono', 'Cascadia Code', Menlo, Consolas, 'DejaVu Sans Mono', monospace",
      fontSize: 13,
      lineHeight: 20,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      smoothScrolling: true,
      renderLineHighlight: 'line',
      renderWhitespace: 'selection',
      padding: { top: 8, bottom: 8 },
      stickyScroll: { enabled: true },
      folding: true,
      contextmenu: true,
      guides: { indentation: true, bracketPairs: false },
      scrollbar: { verticalScrollbarSize: 10, horizontalScrollbarSize: 10, useShadows: false },
      overviewRulerBorder: false,
      fixedOverflowWidgets: true,
    });
    // Ctrl+S (Cmd+S) saves, and the browser's own "Save page" never opens over the editor.
    editorRef.current.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => live.current.onSaveKey?.());
    cacheRef.current = new ModelCache((key, text, lang) => monaco.editor.createModel(text, lang, monaco.Uri.file(key)));
    return () => {
      editorRef.current?.dispose();
      editorRef.current = null;
      cacheRef.current?.dispose();
      cacheRef.current = null;
      shownRef.current = null;
    };
  }, []);

  useEffect(() => {
    const editor = editorRef.current;
    const cache = cacheRef.current;
    if (!editor || !cache) return;
    const previous = shownRef.current;
    // Saved for the file being left, and for the file being refreshed in place (it changed on
    // disk): replacing a model's text would otherwise jump the view back to the top.
    if (previous) cache.saveViewState(previous, editor.saveViewState());
    const entry = cache.acquire(absPath, content, monacoLanguage(language), (m, l) => monaco.editor.setModelLanguage(m, l));
    const other = editor.getModel() !== entry.model;
    if (other) editor.setModel(entry.model);
    // Only on another file: a refresh in place keeps the person's cursor and scroll.
    if (other && entry.viewState) editor.restoreViewState(entry.viewState);
    else if (other) editor.setScrollPosition({ scrollTop: 0, scrollLeft: 0 });
    shownRef.current = absPath;
    live.current.onDirty?.(path, isDirty(entry));
  }, [absPath, path, content, language]);

  useEffect(() => {
    if (!savingRef.current) editorRef.current?.updateOptions({ readOnly: readOnly !== undefined, readOnlyMessage: { value: readOnly ? `Read-only: ${readOnly}` : '' } });
  }, [readOnly]);

  // Typing marks the file unsaved (and undoing back to the saved text marks it saved again).
  useEffect(() => {
    const editor = editorRef.current;
    if (!editor) return;
    const sub = editor.onDidChangeModelContent(() => {
      const entry = cacheRef.current?.get(live.current.absPath);
      if (entry && editor.getModel() === entry.model) live.current.onDirty?.(live.current.path, isDirty(entry));
    });
    return () => sub.dispose();
  }, []);

  /** Saves the shown buffer. The editor is read-only meanwhile, so no keystroke lands between the text sent and the text saved. */
  const save = async (overwrite: boolean) => {
    const editor = editorRef.current;
    const { path: rel, absPath: key, readOnly: ro, onSave: send } = live.current;
    const entry = cacheRef.current?.get(key);
    if (!editor || !entry || !send || ro !== undefined || savingRef.current || editor.getModel() !== entry.model) return;
    if (!overwrite && !isDirty(entry)) return;
    savingRef.current = true;
    editor.updateOptions({ readOnly: true, readOnlyMessage: { value: 'Saving…' } });
    const text = entry.model.getValue(monaco.editor.EndOfLinePreference.LF);
    try {
      const saved = await send(rel, text, entry.base, overwrite);
      if (saved && !entry.model.isDisposed()) landSaved(entry, text, saved.content);
    } finally {
      savingRef.current = false;
      editor.updateOptions({ readOnly: live.current.readOnly !== undefined });
      if (!entry.model.isDisposed()) live.current.onDirty?.(rel, isDirty(entry));
    }
  };

  /** The disk holds `disk` now: a merge brings the disk's other changes into the buffer, as an edit it can undo. */
  const landSaved = (entry: Entry, sent: string, disk: string) => {
    if (plain(disk) !== sent) entry.model.pushEditOperations([], [{ range: entry.model.getFullModelRange(), text: plain(disk) }], () => null);
    cacheRef.current?.markSaved(entry, disk);
  };

  const handled = useRef(command?.seq ?? 0);
  useEffect(() => {
    const editor = editorRef.current;
    const cache = cacheRef.current;
    if (!command || !editor || !cache || command.seq <= handled.current) return;
    handled.current = command.seq;
    const key = `${root}/${command.path}`;
    if (command.kind === 'close') {
      if (editor.getModel() === cache.get(key)?.model) editor.setModel(null);
      if (shownRef.current === key) shownRef.current = null;
      cache.drop(key);
      return;
    }
    if (key !== shownRef.current) return;
    if (command.kind === 'revert') {
      const entry = cache.get(key);
      if (!entry) return;
      entry.model.pushEditOperations([], [{ range: entry.model.getFullModelRange(), text: plain(live.current.content) }], () => null);
      cache.markSaved(entry, live.current.content);
      live.current.onDirty?.(command.path, false);
      return;
    }
    void save(command.kind === 'overwrite');
    // save reads the latest props itself.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [command, root]);

  // The latest callback, read by one listener made with the editor.
  const selectionRef = useRef(onSelection);
  useEffect(() => {
    selectionRef.current = onSelection;
  }, [onSelection]);
  useEffect(() => {
    const editor = editorRef.current;
    if (!editor) return;
    const sub = editor.onDidChangeCursorSelection(({ selection: sel }) => {
      if (sel.isEmpty()) return selectionRef.current?.(null);
      // A selection that ends at the start of a line does not take that line.
      const last = sel.endColumn === 1 && sel.endLineNumber > sel.startLineNumber ? sel.endLineNumber - 1 : sel.endLineNumber;
      selectionRef.current?.([sel.startLineNumber, last]);
    });
    return () => sub.dispose();
  }, []);

  const revealed = useRef<string | null>(null);
  useEffect(() => {
    const editor = editorRef.current;
    const key = reveal ? `${absPath}\u0000${reveal.seq}` : null;
    if (!editor || !reveal || key === revealed.current || shownRef.current !== absPath) return;
    revealed.current = key;
    const line = Math.min(reveal.line, editor.getModel()?.getLineCount() ?? reveal.line);
    editor.revealLineInCenter(line);
    editor.setSelection(new monaco.Selection(line, 1, line, editor.getModel()?.getLineMaxColumn(line) ?? 1));
  }, [absPath, content, reveal]);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (model) setProblemMarkers(model, problems);
  }, [absPath, content, problems]);

  return <div ref={hostRef} className="monaco-host" hidden={hidden} data-language={monacoLanguage(language)} data-problems={problems?.length ?? 0} />;
}
