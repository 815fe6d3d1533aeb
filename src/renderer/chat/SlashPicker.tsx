import { useEffect, useState, type KeyboardEvent, type ReactNode, type RefObject, type SyntheticEvent } from 'react';
import type { SlashCommandView } from '../../shared/contract';
import { useApp } from '../store';

/** Entries drawn at most: the rest are a keystroke away. */
const SHOWN = 50;

export interface SlashControl {
  picker: ReactNode;
  /** The picker's keys (arrows, Enter, Tab, Escape); true when it took the key. */
  onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>): boolean;
  onCaret(e: SyntheticEvent<HTMLTextAreaElement>): void;
}

/** Name matches first (its start, then anywhere), then the description; the list's own order within each. */
export function rankSlash(items: readonly SlashCommandView[], query: string): SlashCommandView[] {
  const q = query.toLowerCase();
  if (!q) return items.slice(0, SHOWN);
  const tiers: SlashCommandView[][] = [[], [], []];
  for (const it of items) {
    const name = it.name.toLowerCase();
    if (name.startsWith(q)) tiers[0].push(it);
    else if (name.includes(q)) tiers[1].push(it);
    else if (it.description.toLowerCase().includes(q)) tiers[2].push(it);
    if (tiers[0].length >= SHOWN) break;
  }
  return tiers.flat().slice(0, SHOWN);
}

const SOURCE: Record<SlashCommandView['source'], string> = { 'built-in': 'built in', personal: 'yours', repository: 'this repository' };

/**
 * `/` at the start of the message: a picker of the built-in commands, the custom commands and the
 * skills (name, description, whose, argument hint), filtered as one types, chosen with the
 * keyboard. Choosing puts `/name ` in the message; the host expands it when it is sent.
 */
export function useSlash(text: string, setText: (t: string) => void, input: RefObject<HTMLTextAreaElement | null>): SlashControl {
  const all = useApp((s) => s.slashCommands);
  const load = useApp((s) => s.loadSlashCommands);
  const [caret, setCaret] = useState(0);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [sel, setSel] = useState({ of: '', i: 0 });

  // The name being typed: from the slash to the caret, with no space in between.
  const head = /^\/(\S*)$/.exec(text.slice(0, Math.min(caret, text.length)));
  const query = head ? head[1] : null;
  const open = query !== null && dismissed !== query;

  // Asked for once a folder is open, so the first `/` opens on a list at once; asked again each
  // time it opens, the last list shown meanwhile.
  const root = useApp((s) => s.workspace?.root);
  useEffect(() => {
    if (root) void load();
  }, [root, load]);
  useEffect(() => {
    if (open) void load();
  }, [open, load]);

  const items = open && all ? rankSlash(all.filter((c) => !c.shadowed_by), query ?? '') : [];
  const active = sel.of === query ? Math.min(sel.i, Math.max(0, items.length - 1)) : 0;

  const pick = (item: SlashCommandView | undefined) => {
    if (!item || query === null) return;
    const rest = text.slice(1 + query.length).replace(/^\s*/, '');
    const next = `/${item.name} ${rest}`;
    setText(next);
    setDismissed(item.name);
    const at = item.name.length + 2;
    requestAnimationFrame(() => {
      const el = input.current;
      if (!el) return;
      el.focus();
      el.setSelectionRange(at, at);
      setCaret(at);
    });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || e.nativeEvent.isComposing) return false;
    if (e.key === 'Escape') setDismissed(query);
    else if (e.key === 'ArrowDown') setSel({ of: query ?? '', i: Math.min(items.length - 1, active + 1) });
    else if (e.key === 'ArrowUp') setSel({ of: query ?? '', i: Math.max(0, active - 1) });
    // A name typed whole: Enter sends it (Tab still completes it).
    else if (e.key === 'Enter' && items[active]?.name === query) return false;
    else if ((e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey && items.length) pick(items[active]);
    else return false;
    e.preventDefault();
    return true;
  };

  const picker = open ? (
    <div className="slash-picker" data-testid="slash-picker" role="listbox" aria-label="Commands and skills">
      {items.map((item, i) => (
        <div
          key={`${item.kind}:${item.name}`}
          role="option"
          aria-selected={i === active}
          className={i === active ? 'slash-item active' : 'slash-item'}
          data-testid="slash-item"
          data-name={item.name}
          data-kind={item.kind}
          data-source={item.source}
          title={item.path ?? 'Built into Loupe'}
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => pick(item)}
        >
          <span className={`slash-kind ${item.kind}`}>{item.kind === 'skill' ? 'skill' : '/'}</span>
          <span className="slash-name">
            /{item.name}
            {item.argument_hint && <span className="slash-hint"> {item.argument_hint}</span>}
          </span>
          <span className="slash-description">{item.description}</span>
          <span className={`slash-source ${item.source}`}>{SOURCE[item.source]}</span>
        </div>
      ))}
      {items.length === 0 && <div className="slash-empty muted">{all === null ? 'Loading commands…' : `No command or skill matches “${query}”`}</div>}
      <div className="slash-foot muted">↑↓ to choose · Enter or Tab picks · Esc closes · a picked command is expanded when sent</div>
    </div>
  ) : null;

  return { picker, onKeyDown, onCaret: (e) => setCaret(e.currentTarget.selectionStart ?? 0) };
}
