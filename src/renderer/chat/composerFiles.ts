import type { ClipboardEvent, DragEvent } from 'react';

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
