import { useEffect, useRef } from 'react';
import type { ApprovalRequestView } from '../../shared/contract';
import { monaco, monacoLanguage } from '../viewer/monacoSetup';

type ProposedEdit = NonNullable<ApprovalRequestView['edit']>;

const FONT = "ui-monospace, 'SF Mono', 'JetBrains Mono', 'Cascadia Code', Menlo, Consolas, 'DejaVu Sans Mono', monospace";
const LINE_HEIGHT = 18;
let seq = 0;

/**
 * The proposed edit of an approval card in Monaco's diff editor, inline (the card is narrow),
 * read-only, unchanged regions folded away. A card's edit never changes, so the editor and its
 * models live exactly as long as the card.
 */
export default function EditDiff({ edit }: { edit: ProposedEdit }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const created = useRef(false);

  useEffect(() => {
    const host = hostRef.current;
    if (created.current || !host) return;
    created.current = true;
    const lang = monacoLanguage(edit.language);
    const n = ++seq;
    const uri = (side: string) => monaco.Uri.parse(`loupe-approval://${side}/${n}/${encodeURIComponent(edit.path)}`);
    const original = monaco.editor.createModel(edit.before ?? '', lang, uri('before'));
    const modified = monaco.editor.createModel(edit.after ?? '', lang, uri('after'));
    const editor = monaco.editor.createDiffEditor(host, {
      readOnly: true,
      originalEditable: false,
      theme: 'loupe-dark',
      automaticLayout: true,
      fontFamily: FONT,
      fontSize: 12,
      lineHeight: LINE_HEIGHT,
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      renderSideBySide: false,
      useInlineViewWhenSpaceIsLimited: true,
      renderOverviewRuler: false,
      renderMarginRevertIcon: false,
      ignoreTrimWhitespace: false,
      lineNumbersMinChars: 3,
      hideUnchangedRegions: { enabled: true, contextLineCount: 2, minimumLineCount: 3, revealLineCount: 10 },
      scrollbar: { verticalScrollbarSize: 8, horizontalScrollbarSize: 8, useShadows: false, alwaysConsumeMouseWheel: false },
      fixedOverflowWidgets: true,
    });
    editor.setModel({ original, modified });
    // Fit the card to the change once it is known: small edits stay small, big ones scroll.
    const fit = editor.onDidUpdateDiff(() => {
      const height = editor.getModifiedEditor().getContentHeight();
      host.style.height = `${Math.max(3 * LINE_HEIGHT, Math.min(height + 4, 320))}px`;
    });
    return () => {
      fit.dispose();
      editor.dispose();
      original.dispose();
      modified.dispose();
      created.current = false;
    };
  }, [edit]);

  return <div ref={hostRef} className="approval-edit-diff" data-testid="approval-diff" data-path={edit.path} />;
}
