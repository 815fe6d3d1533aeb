import { useEffect, useRef } from 'react';
import { ModelCache } from './modelCache';
import { monaco, monacoLanguage } from './monacoSetup';
import { setProblemMarkers } from './markers';
import type { ProblemView } from '../../shared/contract';

export interface MonacoViewProps {
  /** Absolute path of the file: names the model, and stays unique across workspaces. */
  absPath: string;
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
 * A read-only Monaco editor. It is created once and only its model is swapped as files
 * change; loaded lazily so the first paint of the app does not wait for Monaco.
 */
export default function MonacoView({ absPath, content, language, hidden, reveal, problems, onSelection }: MonacoViewProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const cacheRef = useRef<ModelCache | null>(null);
  const shownRef = useRef<string | null>(null);

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
    if (editor.getModel() !== entry.model) editor.setModel(entry.model);
    if (entry.viewState) editor.restoreViewState(entry.viewState);
    else editor.setScrollPosition({ scrollTop: 0, scrollLeft: 0 });
    shownRef.current = absPath;
  }, [absPath, content, language]);

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
