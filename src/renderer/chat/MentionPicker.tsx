import { useEffect, useState, type KeyboardEvent, type ReactNode, type RefObject, type SyntheticEvent } from 'react';
import type { MentionItem } from '../../shared/contract';
import { useApp } from '../store';
import { KindIcon } from './AttachmentChips';

/** An `@` at the start or after a space, and what follows it up to the caret. */
const TRIGGER = /(?:^|\s)@([^\s@]*)$/;

type Entry = MentionItem | { kind: 'selection'; path: string; lines: [number, number] };

export interface MentionControl {
  /** The picker, while an `@` mention is being typed. */
  picker: ReactNode;
  /** The picker's keys (arrows, Enter, Tab, Escape); true when it took the key. */
  onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>): boolean;
  /** The caret moved or the text changed. */
  onCaret(e: SyntheticEvent<HTMLTextAreaElement>): void;
}

const keyOf = (e: Entry) => `${e.kind}:${e.path}${e.kind === 'selection' ? `:${e.lines.join('-')}` : ''}`;

/**
 * `@` in the chat input: a picker over the file index (the host's search, quick open's ranking,
 * without files the read rules hold back) and the viewer's selection. A pick attaches the entry
 * and leaves its full name in the message as text (`@src/app.ts`, `@src/`, `@src/app.ts:3-9`).
 */
export function useMentions(text: string, setText: (t: string) => void, input: RefObject<HTMLTextAreaElement | null>): MentionControl {
  const find = useApp((s) => s.findMentions);
  const attach = useApp((s) => s.attach);
  const selection = useApp((s) => s.viewerSelection);
  const [caret, setCaret] = useState(0);
  // Escape closes the picker for this mention; typing on opens it again.
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [found, setFound] = useState<{ query: string; items: MentionItem[] } | null>(null);
  const [sel, setSel] = useState<{ of: unknown; i: number }>({ of: null, i: 0 });

  const before = text.slice(0, Math.min(caret, text.length));
  const match = TRIGGER.exec(before);
  const query = match ? match[1] : null;
  const open = query !== null && dismissed !== `${caret}:${query}`;

  useEffect(() => {
    if (query === null) return;
    let live = true;
    const timer = setTimeout(() => {
      find(query).then(
        (items) => live && setFound({ query, items }),
        () => live && setFound({ query, items: [] }),
      );
      // `@` alone asks at once (nothing is being typed to wait for); a query waits a moment for the next key.
    }, query ? 30 : 0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [find, query]);

  const items = found && found.query === query ? found.items : null;
  const entries: Entry[] = [];
  const q = (query ?? '').toLowerCase();
  if (selection && (!q || 'selection'.startsWith(q) || selection.path.toLowerCase().includes(q))) entries.push({ kind: 'selection', ...selection });
  for (const it of items ?? []) entries.push(it);
  const active = sel.of === items ? Math.min(sel.i, Math.max(0, entries.length - 1)) : 0;

  const pick = (entry: Entry | undefined) => {
    if (!entry || query === null) return;
    const start = before.length - query.length - 1;
    // The mention stays in the sentence as its full name ("what calls @src/app.ts?"); its
    // content goes with the message as the chip's attachment.
    const name = `@${mentionText(entry)}`;
    const rest = text.slice(before.length);
    const spaced = rest.startsWith(' ') ? name : `${name} `;
    setText(text.slice(0, start) + spaced + rest);
    attach(entry.kind === 'selection' ? { kind: 'selection', path: entry.path, lines: entry.lines } : { kind: entry.kind, path: entry.path });
    // The caret goes after the mention, where the sentence goes on.
    const end = start + spaced.length + (rest.startsWith(' ') ? 1 : 0);
    requestAnimationFrame(() => {
      const el = input.current;
      if (!el) return;
      el.focus();
      el.setSelectionRange(end, end);
      setCaret(end);
    });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || e.nativeEvent.isComposing) return false;
    if (e.key === 'Escape') setDismissed(`${caret}:${query}`);
    else if (e.key === 'ArrowDown') setSel({ of: items, i: Math.min(entries.length - 1, active + 1) });
    else if (e.key === 'ArrowUp') setSel({ of: items, i: Math.max(0, active - 1) });
    else if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && entries.length) pick(entries[active]);
    else return false;
    e.preventDefault();
    return true;
  };

  const picker = open ? (
    <div className="mention-picker" data-testid="mention-picker" role="listbox" aria-label="Attach a file, folder or the selection">
      {entries.map((entry, i) => {
        const cut = entry.path.lastIndexOf('/');
        const name = entry.kind === 'selection' ? `Selection: lines ${entry.lines[0]}–${entry.lines[1]}` : entry.path.slice(cut + 1) + (entry.kind === 'dir' ? '/' : '');
        const where = entry.kind === 'selection' ? entry.path : cut > 0 ? entry.path.slice(0, cut) : '';
        return (
          <div
            key={keyOf(entry)}
            role="option"
            aria-selected={i === active}
            className={i === active ? 'mention-item active' : 'mention-item'}
            data-testid="mention-item"
            data-kind={entry.kind}
            data-path={entry.path}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => pick(entry)}
          >
            <span className={`mention-kind ${entry.kind}`}>
              <KindIcon kind={entry.kind} />
            </span>
            <span className="mention-name">{name}</span>
            {where && <span className="mention-dir">{where}</span>}
          </div>
        );
      })}
      {entries.length === 0 && <div className="mention-empty muted">{items === null ? 'Searching…' : `No file matches “${query}”`}</div>}
      <div className="mention-foot muted">↑↓ to choose · Enter or Tab attaches · Esc closes</div>
    </div>
  ) : null;

  return { picker, onKeyDown, onCaret: (e) => setCaret(e.currentTarget.selectionStart ?? 0) };
}

/** How a picked entry reads in the sentence: its path, a folder with its slash, a selection with its lines. */
function mentionText(entry: Entry): string {
  if (entry.kind === 'selection') return `${entry.path}:${entry.lines[0]}-${entry.lines[1]}`;
  return entry.kind === 'dir' ? `${entry.path}/` : entry.path;
}
