import { memo } from 'react';
import type { GitBadge } from '../../shared/contract';
import { ChevronIcon, FileIcon, FolderIcon, FolderOpenIcon } from '../app/icons';
import type { TreeRow } from './flatten';
import { fileColor, GIT_CLASS, GIT_LABEL, GIT_LETTER } from './fileKind';

export const ROW_HEIGHT = 22;
const INDENT = 12;

interface FileTreeRowProps {
  row: TreeRow;
  index: number;
  selected: boolean;
  /** The file shown in the viewer. */
  viewing: boolean;
  loading: boolean;
  badge: GitBadge | undefined;
  /** For folders: the strongest change somewhere beneath. */
  nested: GitBadge | undefined;
  onActivate(path: string, kind: 'file' | 'dir'): void;
}

export const rowId = (index: number) => `file-tree-row-${index}`;

export const FileTreeRow = memo(function FileTreeRow({ row, index, selected, viewing, loading, badge, nested, onActivate }: FileTreeRowProps) {
  const tone = badge ?? nested;
  const classes = ['tree-row'];
  if (selected) classes.push('selected');
  if (viewing) classes.push('viewing');
  if (tone) classes.push(`git-${GIT_CLASS[tone]}`);
  const isDir = row.kind === 'dir';
  const letter = badge ? GIT_LETTER[badge] : '';

  return (
    <div
      id={rowId(index)}
      className={classes.join(' ')}
      style={{ transform: `translateY(${index * ROW_HEIGHT}px)`, paddingLeft: 8 + row.depth * INDENT }}
      role="treeitem"
      aria-level={row.depth + 1}
      aria-selected={selected}
      aria-expanded={isDir ? row.expanded : undefined}
      data-testid="file-tree-item"
      data-path={row.path}
      data-kind={row.kind}
      data-git={badge}
      data-git-nested={badge ? undefined : nested}
      title={badge ? `${row.path} · ${GIT_LABEL[badge]}` : row.path}
      onClick={() => onActivate(row.path, row.kind)}
    >
      {/* Indent guides: one hairline per ancestor level. */}
      {row.depth > 0 && <span className="tree-guides" style={{ width: row.depth * INDENT }} aria-hidden="true" />}
      <span className={isDir ? `tree-twisty${row.expanded ? ' open' : ''}${loading ? ' loading' : ''}` : 'tree-twisty none'} aria-hidden="true">
        {isDir && <ChevronIcon size={14} />}
      </span>
      <span className="tree-icon" style={isDir ? undefined : { color: fileColor(row.name) }} aria-hidden="true">
        {isDir ? row.expanded ? <FolderOpenIcon size={15} /> : <FolderIcon size={15} /> : <FileIcon size={15} />}
      </span>
      <span className="tree-name">{row.name}</span>
      {letter && <span className="tree-badge">{letter}</span>}
      {!badge && nested && <span className="tree-dot" aria-label="Contains changes" />}
    </div>
  );
});
