import type { AttachmentView, ChatAttachment, MentionItem } from '../../shared/contract';
import { errorMessage } from '../host-client';
import type { SliceCreator } from './types';

/** Something attached to the message being written, shown as a chip until it is sent. */
export interface PendingAttachment {
  id: string;
  attachment: ChatAttachment;
  view: AttachmentView;
  /** An image's thumbnail (its data URL). */
  preview?: string;
}

/** Images a provider takes, and how large (the host checks both again). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;

export interface ComposerSlice {
  chatAttachments: PendingAttachment[];
  /** Why something was not attached (a text-only model, a too large image), until dismissed or the next attach. */
  attachNotice: string | null;
  /** The `@` picker's entries for a query (files and folders a read allows without asking). */
  findMentions(query: string): Promise<MentionItem[]>;
  attach(attachment: Exclude<ChatAttachment, { kind: 'image' }>): void;
  /** Pasted or dropped images: attached when the model takes images, else refused with the reason. */
  attachImages(files: File[]): Promise<void>;
  detach(id: string): void;
  clearAttachments(): void;
  dismissAttachNotice(): void;
}

let seq = 0;

const labelOf = (a: Exclude<ChatAttachment, { kind: 'image' }>): string => (a.kind === 'selection' ? `${a.path}:${a.lines[0]}-${a.lines[1]}` : a.kind === 'dir' ? `${a.path}/` : a.path);
const sameTarget = (a: ChatAttachment, b: ChatAttachment): boolean => a.kind !== 'image' && b.kind === a.kind && labelOf(a) === labelOf(b as typeof a);

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error ?? new Error('The image could not be read.'));
    r.readAsDataURL(file);
  });
}

/** The thumbnail's longest side, in pixels: what a sent message shows of an image. */
const THUMB_PX = 96;

/**
 * A small JPEG of the image for the sent message (the host keeps it in the transcript); none
 * where the browser cannot decode it, which leaves the chip's icon.
 */
async function thumbnailOf(file: File): Promise<string | undefined> {
  if (typeof createImageBitmap !== 'function') return undefined;
  try {
    const bitmap = await createImageBitmap(file);
    const scale = Math.min(1, THUMB_PX / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    return canvas.toDataURL('image/jpeg', 0.8);
  } catch {
    return undefined;
  }
}

export const createComposerSlice: SliceCreator<ComposerSlice> = (set, get, { client }) => ({
  chatAttachments: [],
  attachNotice: null,

  async findMentions(query) {
    return (await client.request('chat.mentions', { query, limit: 30 })).items;
  },

  attach(attachment) {
    if (get().chatAttachments.some((p) => sameTarget(p.attachment, attachment))) return;
    const view: AttachmentView = { kind: attachment.kind, label: labelOf(attachment), path: attachment.path, size: 0, ...(attachment.kind === 'selection' ? { lines: attachment.lines } : {}) };
    set((s) => ({ chatAttachments: [...s.chatAttachments, { id: `att-${++seq}`, attachment, view }], attachNotice: null }));
  },

  async attachImages(files) {
    const images = files.filter((f) => f.type.startsWith('image/'));
    if (!images.length) return;
    // The settings may have learned since they were read (the server's /models is read in the background).
    if (!get().llmSettings?.model_facts?.images) await get().loadSettings();
    const settings = get().llmSettings;
    const facts = settings?.model_facts;
    if (!settings?.configured || !facts) return void set({ attachNotice: 'Connect a model first: images are sent only to a model that takes them.' });
    if (!facts.images) {
      const why =
        facts.images_source === 'settings'
          ? `${settings.model} is marked as text-only in Settings › Models`
          : facts.images_source === 'server'
            ? `the server says ${settings.model} takes no images`
            : `Loupe does not know that ${settings.model} takes images`;
      return void set({ attachNotice: `Image not attached: ${why}. If it does take images, tick “images” for it in Settings › Models.` });
    }
    for (const f of images) {
      const name = f.name || `pasted-${new Date().toISOString().slice(11, 19).replace(/:/g, '')}.${f.type.split('/')[1] ?? 'png'}`;
      if (!IMAGE_TYPES.includes(f.type)) return void set({ attachNotice: `Image not attached: ${name} is ${f.type}; images can be PNG, JPEG, GIF or WebP.` });
      if (f.size > IMAGE_MAX_BYTES) return void set({ attachNotice: `Image not attached: ${name} is ${(f.size / 1048576).toFixed(1)} MB; images are sent up to 5 MB.` });
      let url: string;
      try {
        url = await readAsDataUrl(f);
      } catch (err) {
        return void set({ attachNotice: `Image not attached: ${errorMessage(err)}` });
      }
      const data = url.slice(url.indexOf(',') + 1);
      const thumbnail = await thumbnailOf(f);
      set((s) => ({
        chatAttachments: [
          ...s.chatAttachments,
          { id: `att-${++seq}`, attachment: { kind: 'image', name, media_type: f.type, data, ...(thumbnail ? { thumbnail } : {}) }, view: { kind: 'image', label: name, size: f.size, ...(thumbnail ? { thumbnail } : {}) }, preview: url },
        ],
        attachNotice: null,
      }));
    }
  },

  detach(id) {
    set((s) => ({ chatAttachments: s.chatAttachments.filter((a) => a.id !== id) }));
  },

  clearAttachments() {
    set({ chatAttachments: [], attachNotice: null });
  },

  dismissAttachNotice() {
    set({ attachNotice: null });
  },
});
