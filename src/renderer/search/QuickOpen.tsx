import { useState } from 'react';
import { useApp } from '../store';
import { SearchBox, useHostQuery } from './SearchBox';

/** Ctrl/Cmd+P: type part of a path, Enter opens the file. */
export function QuickOpen() {
  const close = useApp((s) => s.setSearchBox);
  const open = useApp((s) => s.openFilePath);
  const [query, setQuery] = useState('');
  const found = useHostQuery('files.find', { query, limit: 50 }, (r) => r.files);
  // The highlighted row belongs to one set of results: new results start at the top.
  const [sel, setSel] = useState<{ of: unknown; i: number }>({ of: null, i: 0 });
  const active = sel.of === found ? sel.i : 0;
  const setActive = (i: number) => setSel({ of: found, i });
  const pick = (path: string | undefined) => {
    if (!path) return;
    close(null);
    void open(path);
  };
  return (
    <SearchBox
      testId="quick-open"
      label="Go to file"
      placeholder="Type to find a file by name or path"
      query={query}
      onQuery={setQuery}
      count={found?.length ?? 0}
      active={active}
      onActive={setActive}
      onPick={(i) => pick(found?.[i])}
      onClose={() => close(null)}
    >
      {(found ?? []).map((path, i) => {
        const cut = path.lastIndexOf('/');
        return (
          <li key={path} role="option" aria-selected={i === active} className={i === active ? 'search-item active' : 'search-item'} data-testid="quick-open-item" data-path={path} onMouseDown={(e) => e.preventDefault()} onClick={() => pick(path)}>
            <span className="search-name">{path.slice(cut + 1)}</span>
            {cut > 0 && <span className="search-dir">{path.slice(0, cut)}</span>}
          </li>
        );
      })}
    </SearchBox>
  );
}
