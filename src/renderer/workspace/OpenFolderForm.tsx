import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useApp } from '../store';
import { separatorOf, splitPath, tabComplete } from './completion';

interface OpenFolderFormProps {
  /** Focus the field when this changes (and on mount when `autoFocus`). */
  focusNonce?: number;
  autoFocus?: boolean;
  onCancel?(): void;
}

// Long enough to skip a request per keystroke while typing fast, short enough to feel live.
const COMPLETE_DELAY_MS = 60;

/** The browser's folder picker: a path field completed by the host's `workspace.complete`. */
export function OpenFolderForm({ focusNonce, autoFocus, onCancel }: OpenFolderFormProps) {
  const [value, setValue] = useState('');
  const [highlight, setHighlight] = useState(-1);
  // Suggestions open once the user types or asks (Tab / Down), not merely on focus, so an
  // auto-focused field does not bury the recent list under a menu nobody asked for.
  const [suggesting, setSuggesting] = useState(false);
  /** The typed path Tab found no folder for. */
  const [noneFor, setNoneFor] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const listId = useId();
  const completion = useApp((s) => s.completion);
  const completePath = useApp((s) => s.completePath);
  const openFolder = useApp((s) => s.openFolder);
  const opening = useApp((s) => s.opening);
  const openError = useApp((s) => s.openError);
  const clearOpenError = useApp((s) => s.clearOpenError);

  useEffect(() => {
    if (!suggesting) return;
    const timer = setTimeout(() => void completePath(value), COMPLETE_DELAY_MS);
    return () => clearTimeout(timer);
  }, [value, suggesting, completePath]);

  useEffect(() => {
    if (autoFocus || focusNonce) inputRef.current?.focus();
  }, [autoFocus, focusNonce]);

  const candidates = suggesting ? completion.candidates : [];
  const active = highlight < candidates.length ? highlight : -1;
  const current = completion.partial === value;
  const none = suggesting && noneFor === value;
  // What is typed now, for a Tab whose matches arrive later.
  const typed = useRef('');

  const change = (next: string) => {
    typed.current = next;
    setValue(next);
    setHighlight(-1);
    setSuggesting(true);
    setNoneFor(null);
    clearOpenError();
  };

  /** Tab as a shell's: one match taken whole, several completed to what they share, none said. */
  const tab = (list: readonly string[]) => {
    if (list.length === 0) {
      setNoneFor(value);
      return;
    }
    const next = tabComplete(value, list, active);
    if (next !== null) change(next);
    else setHighlight(0);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!suggesting) {
        setSuggesting(true);
        return;
      }
      const n = candidates.length;
      if (n === 0) return;
      // -1 is "the typed text itself", so the cycle passes through it like a shell menu.
      const next = active + (e.key === 'ArrowDown' ? 1 : -1);
      setHighlight(next >= n ? -1 : next < -1 ? n - 1 : next);
    } else if (e.key === 'Tab' && !e.shiftKey) {
      if (!suggesting) {
        e.preventDefault();
        setSuggesting(true);
        return;
      }
      e.preventDefault();
      if (current) tab(candidates);
      else {
        // The matches of what is typed are not in yet: ask now, complete when they come.
        const asked = value;
        void completePath(asked).then((list) => list && typed.current === asked && tab(list));
      }
    } else if (e.key === 'Enter') {
      e.preventDefault();
      void openFolder(active >= 0 ? candidates[active] : value);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      if (suggesting && candidates.length > 0) {
        setSuggesting(false);
        setHighlight(-1);
      } else onCancel?.();
    }
  };

  return (
    <div className="open-folder-form">
      <div className="open-folder-row">
        <input
          ref={inputRef}
          className="text-input"
          data-testid="open-folder-input"
          type="text"
          value={value}
          placeholder="/path/to/project  (Tab completes)"
          spellCheck={false}
          autoComplete="off"
          autoCapitalize="off"
          role="combobox"
          aria-label="Folder path"
          aria-expanded={candidates.length > 0}
          aria-controls={listId}
          aria-activedescendant={active >= 0 ? `${listId}-${active}` : undefined}
          onChange={(e) => change(e.target.value)}
          onKeyDown={onKeyDown}
          onBlur={() => setSuggesting(false)}
        />
        <button type="button" className="btn btn-primary" disabled={opening} onClick={() => void openFolder(value)}>
          {opening ? 'Opening…' : 'Open'}
        </button>
      </div>
      {openError && (
        <div className="open-folder-error" role="alert" data-testid="open-folder-error">
          {openError}
        </div>
      )}
      {none && (
        <div className="open-folder-none muted" role="status" data-testid="open-folder-none">
          No folder matches {value}
        </div>
      )}
      {candidates.length > 0 && (
        <ul className="completion-list" id={listId} role="listbox" aria-label="Matching folders">
          {candidates.map((c, i) => {
            const { dir, name } = splitPath(c);
            return (
              <li
                key={c}
                id={`${listId}-${i}`}
                role="option"
                aria-selected={i === active}
                className={i === active ? 'completion-item active' : 'completion-item'}
                data-testid="open-folder-candidate"
                // mousedown, not click: the input must not blur (and close the list) first.
                onMouseDown={(e) => {
                  e.preventDefault();
                  change(c + separatorOf(c));
                }}
                onDoubleClick={() => void openFolder(c)}
              >
                <span className="completion-dir">{dir}</span>
                <span className="completion-name">{name}</span>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
