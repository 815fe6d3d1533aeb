import type { AttachmentView } from '../../shared/contract';
import { FileIcon, FolderIcon, ImageIcon, SelectionIcon } from '../app/icons';
import { useApp } from '../store';

/** The icon of an attached file, folder, selection or image (the picker's too). */
export function KindIcon({ kind }: { kind: AttachmentView['kind'] }) {
  const Icon = kind === 'image' ? ImageIcon : kind === 'dir' ? FolderIcon : kind === 'selection' ? SelectionIcon : FileIcon;
  return <Icon size={12} className="attachment-icon" />;
}

/** What is attached to the message being written, one chip each (× removes it), and why something was refused. */
export function AttachmentChips() {
  const pending = useApp((s) => s.chatAttachments);
  const notice = useApp((s) => s.attachNotice);
  const detach = useApp((s) => s.detach);
  const dismiss = useApp((s) => s.dismissAttachNotice);
  if (!pending.length && !notice) return null;
  return (
    <div className="attachments">
      {pending.map((p) => (
        <span key={p.id} className="attachment-chip" data-testid="attachment-chip" data-kind={p.view.kind} data-path={p.view.path ?? p.view.label} title={p.view.label}>
          {p.preview ? <img className="attachment-thumb" src={p.preview} alt="" /> : <KindIcon kind={p.view.kind} />}
          <span className="attachment-label">{p.view.label}</span>
          <button type="button" className="attachment-remove" aria-label={`Remove ${p.view.label}`} onClick={() => detach(p.id)}>
            ×
          </button>
        </span>
      ))}
      {notice && (
        <div className="attach-notice" role="alert" data-testid="attach-notice">
          <span>{notice}</span>
          <button type="button" className="icon-btn" aria-label="Dismiss" onClick={dismiss}>
            ✕
          </button>
        </div>
      )}
    </div>
  );
}

/** A sent message's attachments, as chips under it. */
export function MessageAttachments({ attachments }: { attachments?: AttachmentView[] }) {
  const open = useApp((s) => s.openFilePath);
  if (!attachments?.length) return null;
  return (
    <div className="attachments sent">
      {attachments.map((a) => (
        <button
          key={`${a.kind}:${a.label}`}
          type="button"
          className="attachment-chip"
          data-testid="message-attachment"
          data-kind={a.kind}
          title={a.truncated ? `${a.label} (cut to fit)` : a.label}
          disabled={a.kind === 'image' || a.kind === 'dir' || !a.path}
          onClick={() => a.path && void open(a.path, a.lines?.[0])}
        >
          {a.thumbnail ? <img className="attachment-thumb sent" data-testid="message-attachment-thumb" src={a.thumbnail} alt={a.label} /> : <KindIcon kind={a.kind} />}
          <span className="attachment-label">{a.label}</span>
        </button>
      ))}
    </div>
  );
}
