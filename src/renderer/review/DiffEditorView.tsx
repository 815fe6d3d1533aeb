import { useEffect, useMemo, useRef } from 'react';
import { monaco, monacoLanguage } from '../viewer/monacoSetup';
import { setProblemMarkers } from '../viewer/markers';
import type { ProblemView } from '../../shared/contract';
import type { Hunk } from './hunks';

interface DiffEditorViewProps {
  /** Names the pair of models; a new key means new content. */
  modelKey: string;
  before: string;
  after: string;
  language: string;
  layout: 'side-by-side' | 'inline';
  /** Hunks that can be reverted from the gutter (empty for a whole-file diff). */
  hunks: Hunk[];
  /** Hunks already reverted on disk: no revert arrow for them. */
  reverted?: number[];
  revertable: boolean;
  onRevertHunk(index: number): void;
  /** Bumped with a hunk index to scroll that hunk into view. */
  reveal: { hunk: number; nonce: number } | null;
  /** The language server's problems in the modified side: squiggles with the message on hover. */
  problems?: readonly ProblemView[];
}

// Bracket pair colours need a parse of the whole document, done on the first render that asks
// for them and again when the language's configuration arrives: ~100 ms for 5,000 lines, on
// the path to the first paint. New models start without them; they are switched on when the
// browser is next idle.
const NO_BRACKET_COLOURS = { enabled: false, independentColorPoolPerBracketType: false };
const BRACKET_COLOURS = { enabled: true, independentColorPoolPerBracketType: false };

const FONT = "ui-monospace, 'SF Mono', 'JetBrains Mono', 'Cascadia Code', Menlo, Consolas, 'DejaVu Sans Mono', monospace";
let modelSeq = 0;

function editorOptions(layout: 'side-by-side' | 'inline'): monaco.editor.IStandaloneDiffEditorConstructionOptions {
  return {
    readOnly: true,
    originalEditable: false,
    // Squiggles are hidden in read-only editors unless asked for: these are the server's problems.
    renderValidationDecorations: 'on',
    theme: 'loupe-dark',
    automaticLayout: true,
    fontFamily: FONT,
    fontSize: 13,
    lineHeight: 20,
    minimap: { enabled: false },
    scrollBeyondLastLine: false,
    smoothScrolling: true,
    renderSideBySide: layout === 'side-by-side',
    useInlineViewWhenSpaceIsLimited: false,
    renderOverviewRuler: true,
    renderIndicators: true,
    renderMarginRevertIcon: false,
    ignoreTrimWhitespace: false,
    glyphMargin: true,
    hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 5, revealLineCount: 20 },
    padding: { top: 6, bottom: 6 },
    scrollbar: { verticalScrollbarSize: 10, horizontalScrollbarSize: 10, useShadows: false },
    fixedOverflowWidgets: true,
    diffWordWrap: 'off',
  };
}

/**
 * Monaco's diff editor, read-only on both sides. Created once; each new pair of texts gets
 * fresh models and the old pair is disposed after the swap. A revert arrow sits in the
 * modified side's gutter at every hunk.
 */
export default function DiffEditorView({ modelKey, before, after, language, layout, hunks, reverted, revertable, onRevertHunk, reveal, problems }: DiffEditorViewProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneDiffEditor | null>(null);
  const modelsRef = useRef<{ key: string; original: monaco.editor.ITextModel; modified: monaco.editor.ITextModel } | null>(null);
  const glyphsRef = useRef<monaco.editor.IEditorDecorationsCollection | null>(null);
  const idleRef = useRef<number[]>([]);
  const open = useMemo(() => hunks.filter((h) => !reverted?.includes(h.index)), [hunks, reverted]);
  const hunksRef = useRef<{ hunks: Hunk[]; revertable: boolean; onRevertHunk(i: number): void }>({ hunks: open, revertable, onRevertHunk });

  useEffect(() => {
    hunksRef.current = { hunks: open, revertable, onRevertHunk };
  }, [open, revertable, onRevertHunk]);

  useEffect(() => {
    if (editorRef.current || !hostRef.current) return;
    warmedUp = true; // nothing left to warm
    const editor = monaco.editor.createDiffEditor(hostRef.current, editorOptions(layout));
    editorRef.current = editor;
    glyphsRef.current = editor.getModifiedEditor().createDecorationsCollection();
    const onMouse = editor.getModifiedEditor().onMouseDown((e) => {
      if (e.target.type !== monaco.editor.MouseTargetType.GUTTER_GLYPH_MARGIN) return;
      const line = e.target.position?.lineNumber;
      const { hunks: hs, revertable: can, onRevertHunk: revert } = hunksRef.current;
      const hit = can ? hs.find((h) => glyphLine(h) === line) : undefined;
      if (hit) revert(hit.index);
    });
    return () => {
      for (const id of idleRef.current) cancelIdleCallback(id);
      idleRef.current = [];
      onMouse.dispose();
      glyphsRef.current?.clear();
      glyphsRef.current = null;
      editor.dispose();
      editorRef.current = null;
      modelsRef.current?.original.dispose();
      modelsRef.current?.modified.dispose();
      modelsRef.current = null;
    };
    // Created once; later prop changes are applied by the effects below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  useEffect(() => {
    const editor = editorRef.current;
    if (!editor) return;
    const lang = monacoLanguage(language);
    const old = modelsRef.current;
    if (old?.key === modelKey && old.original.getValue() === before && old.modified.getValue() === after) {
      if (old.original.getLanguageId() !== lang) {
        monaco.editor.setModelLanguage(old.original, lang);
        monaco.editor.setModelLanguage(old.modified, lang);
      }
      return;
    }
    const n = ++modelSeq;
    const original = monaco.editor.createModel(before, lang, monaco.Uri.parse(`loupe-diff://before/${n}/${encodeURIComponent(modelKey)}`));
    const modified = monaco.editor.createModel(after, lang, monaco.Uri.parse(`loupe-diff://after/${n}/${encodeURIComponent(modelKey)}`));
    for (const id of idleRef.current) cancelIdleCallback(id);
    original.updateOptions({ bracketColorizationOptions: NO_BRACKET_COLOURS });
    modified.updateOptions({ bracketColorizationOptions: NO_BRACKET_COLOURS });
    editor.setModel({ original, modified });
    // One side per idle period: each is a parse of its whole text. Turning the option on does
    // not repaint; asking the side's editor for decorations makes its model parse the brackets
    // here and then tell the editors that its decorations changed.
    const colour = (side: monaco.editor.ICodeEditor, m: monaco.editor.ITextModel) => () => {
      if (m.isDisposed() || side.getModel() !== m) return;
      m.updateOptions({ bracketColorizationOptions: BRACKET_COLOURS });
      side.getDecorationsInRange(new monaco.Range(1, 1, 1, 1));
    };
    idleRef.current = [
      requestIdleCallback(colour(editor.getModifiedEditor(), modified), { timeout: 2000 }),
      requestIdleCallback(colour(editor.getOriginalEditor(), original), { timeout: 2500 }),
    ];
    modelsRef.current = { key: modelKey, original, modified };
    // Disposed only after the editor holds the new pair, so it never renders a disposed model.
    old?.original.dispose();
    old?.modified.dispose();
  }, [modelKey, before, after, language]);

  useEffect(() => {
    editorRef.current?.updateOptions({ renderSideBySide: layout === 'side-by-side' });
  }, [layout]);

  useEffect(() => {
    const modified = modelsRef.current?.modified;
    if (modified) setProblemMarkers(modified, problems);
  }, [modelKey, before, after, problems]);

  useEffect(() => {
    glyphsRef.current?.set(
      revertable
        ? open.map((h) => ({
            range: new monaco.Range(glyphLine(h), 1, glyphLine(h), 1),
            options: {
              glyphMarginClassName: 'review-hunk-glyph codicon codicon-discard',
              glyphMarginHoverMessage: { value: `Revert hunk ${h.index + 1} (−${h.removed} +${h.added})` },
              stickiness: monaco.editor.TrackedRangeStickiness.NeverGrowsWhenTypingAtEdges,
            },
          }))
        : [],
    );
  }, [open, revertable, modelKey]);

  useEffect(() => {
    const editor = editorRef.current;
    const h = reveal ? hunks[reveal.hunk] : undefined;
    if (!editor || !h) return;
    const modified = editor.getModifiedEditor();
    modified.revealLineInCenter(glyphLine(h));
    modified.setPosition({ lineNumber: glyphLine(h), column: 1 });
    // reveal carries a nonce: the same hunk clicked twice scrolls twice.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [reveal]);

  return <div ref={hostRef} className="diff-host" data-layout={layout} data-problems={problems?.length ?? 0} />;
}

/** The line of the modified side where a hunk's first change sits (its context skipped). */
function glyphLine(h: Hunk): number {
  return Math.max(1, h.newStart + h.leadingContext);
}

let warmedUp = false;

/**
 * Creates a small diff editor off screen, lets it compute and render its diff, and disposes it.
 * The first real diff then finds Monaco's code compiled by V8, the font measured and the diff
 * worker running; without this, they cost the first 5,000-line diff ~130 ms of main-thread time
 * before its paint.
 * Called when the browser is idle after the chunk was preloaded; does nothing once any diff
 * editor exists.
 */
export function warmUpDiffEditor(): void {
  if (warmedUp) return;
  warmedUp = true;
  const host = document.createElement('div');
  host.setAttribute('aria-hidden', 'true');
  host.style.cssText = 'position:fixed;left:-10000px;top:0;width:900px;height:300px;visibility:hidden;pointer-events:none;contain:strict';
  document.body.appendChild(host);
  const editor = monaco.editor.createDiffEditor(host, editorOptions('side-by-side'));
  // Any small pair with a few changes: it takes the same code paths as a real diff.
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1} of the warm-up text`);
  const original = monaco.editor.createModel(lines.join('\n'), 'plaintext');
  const modified = monaco.editor.createModel(lines.map((l, i) => (i % 15 === 7 ? `${l}, changed` : l)).join('\n'), 'plaintext');
  let done = false;
  const dispose = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    updated.dispose();
    editor.dispose();
    original.dispose();
    modified.dispose();
    host.remove();
  };
  // Disposed a frame after the diff was shown, or after 10 s whatever happened.
  const updated = editor.onDidUpdateDiff(() => requestAnimationFrame(() => requestAnimationFrame(dispose)));
  const timer = setTimeout(dispose, 10_000);
  editor.setModel({ original, modified });
}
