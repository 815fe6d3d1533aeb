import { useState } from 'react';
import { useApp } from '../store';
import { SearchBox, useHostQuery } from './SearchBox';

/** Ctrl/Cmd+Shift+F: the text across the workspace, through the grep tool's search; Enter opens the match. */
export function FindInFiles() {
  const close = useApp((s) => s.setSearchBox);
  const open = useApp((s) => s.openFilePath);
  const [query, setQuery] = useState('');
  const found = useHostQuery('search.text', { query }, (r) => r);
  const matches = found?.matches ?? [];
  // The highlighted row belongs to one set of results: new results start at the top.
  const [sel, setSel] = useState<{ of: unknown; i: number }>({ of: null, i: 0 });
  const active = sel.of === found ? sel.i : 0;
  const setActive = (i: number) => setSel({ of: found, i });
  const pick = (i: number) => {
    const m = matches[i];
    if (!m) return;
    close(null);
    void open(m.path, m.line);
  };
  return (
    <SearchBox
      testId="find-in-files"
      label="Find in files"
      placeholder="Find in files (literal text)"
      query={query}
      onQuery={setQuery}
      count={matches.length}
      active={active}
      onActive={setActive}
      onPick={pick}
      onClose={() => close(null)}
      footer={found && found.total > matches.length ? `${matches.length} of ${found.total} matches shown` : found ? `${found.total} ${found.total === 1 ? 'match' : 'matches'}` : ''}
    >
      {matches.map((m, i) => (
        <li key={`${m.path}:${m.line}:${i}`} role="option" aria-selected={i === active} className={i === active ? 'search-item active' : 'search-item'} data-testid="find-in-files-item" data-path={m.path} data-line={m.line} onMouseDown={(e) => e.preventDefault()} onClick={() => pick(i)}>
          <span className="search-dir">
            {m.path}:{m.line}
          </span>
          <span className="search-text">{m.text.trim()}</span>
        </li>
      ))}
    </SearchBox>
  );
}
