import { useEffect, useState, type ReactNode } from 'react';
import type { Params, Result } from '../../shared/contract';
import { useApp } from '../store';
import type { SearchChannel } from '../store/panelsSlice';
import './search.css';

/** Asks the host as the query changes (a short pause first); the latest answer wins. */
export function useHostQuery<C extends SearchChannel, T>(channel: C, params: Params<C> & { query: string }, pickOut: (r: Result<C>) => T): T | null {
  const search = useApp((s) => s.search);
  const [result, setResult] = useState<T | null>(null);
  const key = JSON.stringify(params);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      search(channel, JSON.parse(key) as Params<C>).then(
        (r) => live && setResult(pickOut(r)),
        () => live && setResult(null),
      );
    }, 80);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // pickOut is a selector written inline by the caller: the query decides when to ask.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [search, channel, key]);
  return result;
}

interface SearchBoxProps {
  testId: string;
  label: string;
  placeholder: string;
  query: string;
  onQuery(q: string): void;
  count: number;
  active: number;
  onActive(i: number): void;
  onPick(i: number): void;
  onClose(): void;
  footer?: string;
  children: ReactNode;
}

/** A box over the workbench: an input, results to move through with the arrows, Enter, Escape. */
export function SearchBox({ testId, label, placeholder, query, onQuery, count, active, onActive, onPick, onClose, footer, children }: SearchBoxProps) {
  return (
    <div className="search-backdrop" onMouseDown={onClose}>
      <div className="search-box" role="dialog" aria-label={label} data-testid={testId} onMouseDown={(e) => e.stopPropagation()}>
        <input
          className="text-input search-input"
          autoFocus
          aria-label={label}
          placeholder={placeholder}
          value={query}
          spellCheck={false}
          onChange={(e) => onQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') onClose();
            else if (e.key === 'ArrowDown') onActive(Math.min(count - 1, active + 1));
            else if (e.key === 'ArrowUp') onActive(Math.max(0, active - 1));
            else if (e.key === 'Enter') onPick(active);
            else return;
            e.preventDefault();
          }}
        />
        <ul className="search-results" role="listbox" aria-label={label}>
          {children}
        </ul>
        {footer && <div className="search-footer">{footer}</div>}
      </div>
    </div>
  );
}
