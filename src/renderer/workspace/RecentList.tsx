import { useApp } from '../store';
import { FolderIcon } from '../app/icons';
import { splitPath } from './completion';

export function RecentList({ limit = 8 }: { limit?: number }) {
  const recent = useApp((s) => s.recent);
  const current = useApp((s) => s.workspace?.root);
  const openFolder = useApp((s) => s.openFolder);
  const items = recent.filter((r) => r !== current).slice(0, limit);
  if (items.length === 0) return null;

  return (
    <section className="recent">
      <h3 className="recent-title">Recent</h3>
      <ul className="recent-list">
        {items.map((path) => {
          const { dir, name } = splitPath(path);
          return (
            <li key={path}>
              <button type="button" className="recent-item" data-testid="recent-folder" data-path={path} title={path} onClick={() => void openFolder(path)}>
                <FolderIcon size={14} className="recent-icon" />
                <span className="recent-name">{name}</span>
                <span className="recent-dir">{dir}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
