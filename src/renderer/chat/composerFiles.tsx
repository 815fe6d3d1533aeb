import { useRef, type ClipboardEvent, type DragEvent } from 'react';
import { ImageIcon } from '../app/icons';

/** Images pasted into the chat input become attachments; text pastes as usual. */
export function attachPasted(e: ClipboardEvent<HTMLTextAreaElement>, attach: (files: File[]) => Promise<void>): void {
  const files = [...e.clipboardData.files].filter((f) => f.type.startsWith('image/'));
  if (!files.length) return;
  e.preventDefault();
  void attach(files);
}

/** Images dropped on the chat input become attachments. */
export function attachDropped(e: DragEvent<HTMLTextAreaElement>, attach: (files: File[]) => Promise<void>): void {
  const files = [...e.dataTransfer.files].filter((f) => f.type.startsWith('image/'));
  if (!files.length) return;
  e.preventDefault();
  void attach(files);
}

/** Attach: images chosen from disk, beside paste and drop (the same checks, the same chips). */
export function AttachImageButton({ attach }: { attach: (files: File[]) => Promise<void> }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="btn chat-attach" data-testid="chat-attach-image" title="Attach images (PNG, JPEG, GIF or WebP; or paste or drop them on the input)" aria-label="Attach images" onClick={() => input.current?.click()}>
        <ImageIcon size={14} />
      </button>
      <input
        ref={input}
        type="file"
        hidden
        multiple
        accept="image/png,image/jpeg,image/gif,image/webp"
        data-testid="chat-attach-input"
        onChange={(e) => {
          const files = [...(e.currentTarget.files ?? [])];
          // Cleared, so choosing the same file again attaches it again.
          e.currentTarget.value = '';
          void attach(files);
        }}
      />
    </>
  );
}
