import { useEffect, useRef, useState } from 'react';
import { useApp } from '../store';

/** How long "Opened … in code" stays before it fades (it covers a corner of the editor). */
const OPENED_MS = 5000;

/** Puts text on the clipboard; where the Clipboard API is refused, selects it for Ctrl+C. */
async function copyText(text: string, el: HTMLElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (el) {
      const range = document.createRange();
      range.selectNodeContents(el);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
    }
    return false;
  }
}

/**
 * "Open in editor", and what it did: the editor and the machine it opened on (Loupe's: a browser
 * may be on another), or why no editor could be opened there, with the path to copy.
 */
export function OpenInEditor({ path }: { path: string }) {
  const open = useApp((s) => s.openInEditor);
  const result = useApp((s) => (s.editorOpen?.file === path ? s.editorOpen : null));
  const dismiss = useApp((s) => s.dismissEditorOpen);
  const [hovered, setHovered] = useState(false);
  // Which result was copied, and how: a new result starts with its own Copy button.
  const [copiedFor, setCopied] = useState<{ of: unknown; how: 'copied' | 'selected' } | null>(null);
  const copied = copiedFor && copiedFor.of === result ? copiedFor.how : null;
  const pathRef = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!result?.opened || hovered) return;
    const t = setTimeout(dismiss, OPENED_MS);
    return () => clearTimeout(t);
  }, [result, hovered, dismiss]);
  const where = result ? `${result.path}${result.line ? `:${result.line}` : ''}` : '';
  const on = result?.host ? ` on ${result.host}` : '';
  return (
    <span className="viewer-editor">
      <button type="button" className="btn btn-sm viewer-editor-btn" data-testid="open-in-editor" title="Open in your editor ($VISUAL, $EDITOR, VS Code, Zed or the system default), on the machine Loupe runs on" onClick={() => void open()}>
        Open in editor
      </button>
      {result && (
        <div
          className={result.opened ? 'editor-open-result opened' : 'editor-open-result'}
          role="status"
          data-testid="open-in-editor-result"
          data-opened={String(result.opened)}
          onMouseEnter={() => setHovered(true)}
          onMouseLeave={() => setHovered(false)}
          onKeyDown={(e) => e.key === 'Escape' && dismiss()}
        >
          <div className="editor-open-text">
            {result.opened ? (
              <>
                Opened in <strong>{result.editor}</strong>
                {on}.
              </>
            ) : (
              <>
                No editor could be opened{on}: {result.reason}. Copy the path and open it yourself:
              </>
            )}
          </div>
          <div className="editor-open-path">
            <code ref={pathRef} data-testid="open-in-editor-path">
              {where}
            </code>
            <button
              type="button"
              className="btn btn-sm"
              data-testid="open-in-editor-copy"
              onClick={() => void copyText(where, pathRef.current).then((ok) => setCopied({ of: result, how: ok ? 'copied' : 'selected' }))}
            >
              {copied === 'copied' ? 'Copied' : copied === 'selected' ? 'Selected: press Ctrl+C' : 'Copy path'}
            </button>
          </div>
          <button type="button" className="icon-btn editor-open-close" aria-label="Dismiss" data-testid="open-in-editor-dismiss" onClick={dismiss}>
            ×
          </button>
        </div>
      )}
    </span>
  );
}
