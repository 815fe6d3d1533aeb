// What the person attaches to a message (the chat's `@` picker, a pasted or dropped image),
// turned into what the model receives. Files are read as read_file reads them: inside the
// workspace after links are resolved, through the safe-read path, never binary, and only when
// the read rules allow them without asking, by the name given and by the file it leads to; a
// denied file is refused with PERMISSION_DENIED, never sent. Text is capped per file and per
// message. An image goes as an image part, and only for a model that takes images.
import type { AttachmentView, ChatAttachment } from '../../shared/contract';
import { IMAGE_MAX_BYTES, IMAGE_TYPES, base64Bytes, imagePart, isBase64 } from '../agent/llm/images';
import type { UserContentPart } from '../agent/llm/types';
import { InvalidArgumentError } from '../errors';
import type { FileSession } from '../services/files/readTracker';
import { loadTextFile } from '../services/files/textFile';
import { PermissionDeniedError } from '../services/permissions/errors';
import { resolveInWorkspace } from '../services/workspace/pathGuard';
import type { WorkspaceServices } from '../workspace/compose';

/** Characters of one file's text sent, and of all attached text in one message. */
export const ATTACH_FILE_CHARS = 50_000;
export const ATTACH_TOTAL_CHARS = 200_000;
/** Entries listed for an attached folder. */
export const ATTACH_DIR_ENTRIES = 500;
export const MAX_ATTACHMENTS = 20;

export interface ResolvedAttachments {
  /** The user message's content: the text with attached files, and image parts when any. */
  content: string | UserContentPart[];
  views: AttachmentView[];
}

export interface AttachOptions {
  /** The model takes images; `model` names it in the refusal. */
  images: boolean;
  model: string;
  /** The chat's read tracking: a file attached whole counts as read, as read_file would record it. */
  session?: FileSession;
}

const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** The attachments as they came over the wire, checked field by field. */
export function checkAttachments(raw: unknown): ChatAttachment[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new InvalidArgumentError('attachments must be a list.');
  if (raw.length > MAX_ATTACHMENTS) throw new InvalidArgumentError(`At most ${MAX_ATTACHMENTS} attachments per message (got ${raw.length}).`);
  return raw.map((a, i) => {
    const o = obj(a);
    const path = typeof o?.path === 'string' ? o.path : null;
    switch (o?.kind) {
      case 'file':
        if (path) return { kind: 'file', path };
        break;
      case 'dir':
        // '' is the workspace root.
        if (path !== null) return { kind: 'dir', path };
        break;
      case 'selection': {
        const lines = o.lines;
        if (path && Array.isArray(lines) && lines.length === 2 && lines.every((n) => Number.isInteger(n) && (n as number) >= 1) && (lines[0] as number) <= (lines[1] as number)) {
          return { kind: 'selection', path, lines: [lines[0] as number, lines[1] as number] };
        }
        break;
      }
      case 'image':
        if (typeof o.data === 'string' && typeof o.media_type === 'string') {
          const thumbnail = thumbnailOf(o.thumbnail);
          return { kind: 'image', name: typeof o.name === 'string' ? o.name.slice(0, 200) : 'image', media_type: o.media_type, data: o.data, ...(thumbnail ? { thumbnail } : {}) };
        }
        break;
    }
    throw new InvalidArgumentError(`Attachment ${i + 1} is not a file, folder, selection or image.`);
  });
}

/** A path the read rules allow without asking, by the name given and by where it leads. */
async function readable(services: WorkspaceServices, requested: string, what: string): Promise<{ abs: string; rel: string }> {
  const resolved = await resolveInWorkspace(services.root, requested);
  const given = requested.replace(/^\.\/+/, '').replace(/\/+$/, '');
  const { actionFor } = await services.permissions.readRules();
  for (const p of new Set([given, resolved.rel])) {
    const action = actionFor(p || '.');
    if (action !== 'allow') {
      throw new PermissionDeniedError(
        `${what} ${requested} cannot be attached: a read rule ${action === 'deny' ? 'denies' : 'asks before'} reading ${p || 'the workspace root'}. ${action === 'ask' ? 'Ask the agent to read it instead; you will be asked first.' : 'Change the rule in the settings or .loupe/config.json to allow it.'}`,
        { denied_by: 'rule' },
      );
    }
  }
  return resolved;
}

/**
 * A workspace file's text by the same rules as an attachment (inside after links, the read rules
 * allowing it without asking, never binary), cut at ATTACH_FILE_CHARS with a note: what a
 * command's `@{path}` puts in its place.
 */
export async function attachedText(services: WorkspaceServices, requested: string): Promise<{ rel: string; text: string }> {
  const { abs, rel } = await readable(services, requested, 'The file');
  const file = await loadTextFile(abs, rel, { root: services.root });
  const text = file.text.replace(/^\uFEFF/, '');
  return { rel, text: text.length > ATTACH_FILE_CHARS ? `${text.slice(0, ATTACH_FILE_CHARS)}\n[cut at ${ATTACH_FILE_CHARS.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters]` : text };
}

const fence = (text: string): string => {
  let ticks = '```';
  while (text.includes(ticks)) ticks += '`';
  return ticks;
};

function sliceLines(text: string, lines: [number, number]): { text: string; total: number } {
  const all = text.replace(/^\uFEFF/, '').split('\n');
  if (all[all.length - 1] === '') all.pop();
  return { text: all.slice(lines[0] - 1, lines[1]).join('\n'), total: all.length };
}

export async function resolveAttachments(services: WorkspaceServices, prompt: string, list: ChatAttachment[], opts: AttachOptions): Promise<ResolvedAttachments> {
  if (!list.length) return { content: prompt, views: [] };
  const blocks: string[] = [];
  const views: AttachmentView[] = [];
  const images: UserContentPart[] = [];
  let budget = ATTACH_TOTAL_CHARS;
  const take = (text: string): { text: string; truncated: boolean } => {
    const cap = Math.max(0, Math.min(ATTACH_FILE_CHARS, budget));
    budget -= Math.min(cap, text.length);
    return text.length > cap ? { text: text.slice(0, cap), truncated: true } : { text, truncated: false };
  };
  for (const a of list) {
    if (a.kind === 'image') {
      if (!opts.images) {
        throw new InvalidArgumentError(
          `The model ${opts.model} is marked as text-only, so the image "${a.name}" was not sent. Remove it, or if this model takes images, say so in Settings › Models (the "images" column).`,
        );
      }
      if (!(IMAGE_TYPES as readonly string[]).includes(a.media_type)) throw new InvalidArgumentError(`"${a.name}" is ${a.media_type}; images can be PNG, JPEG, GIF or WebP.`);
      if (!isBase64(a.data)) throw new InvalidArgumentError(`"${a.name}" is not base64 data.`);
      const bytes = base64Bytes(a.data);
      if (bytes > IMAGE_MAX_BYTES) throw new InvalidArgumentError(`"${a.name}" is ${(bytes / 1048576).toFixed(1)} MB; images are sent up to ${IMAGE_MAX_BYTES / 1048576} MB.`);
      images.push(imagePart(a.media_type, a.data));
      views.push({ kind: 'image', label: a.name, size: bytes, ...(a.thumbnail ? { thumbnail: a.thumbnail } : {}) });
      continue;
    }
    if (a.kind === 'dir') {
      const { rel } = await readable(services, a.path, 'The folder');
      const { actionFor } = await services.permissions.readRules();
      const prefix = rel ? `${rel}/` : '';
      const entries: string[] = [];
      let more = 0;
      for (const f of services.index.files()) {
        if (!f.startsWith(prefix) || actionFor(f) !== 'allow') continue;
        if (entries.length < ATTACH_DIR_ENTRIES) entries.push(f);
        else more++;
      }
      entries.sort();
      const body = take(entries.join('\n'));
      const note = more || body.truncated ? `\n[${more} more files not listed; list_files or grep find them]` : '';
      blocks.push(`<attached_folder path="${rel || '.'}">\n${body.text}${note}\n</attached_folder>`);
      views.push({ kind: 'dir', label: rel || '.', path: rel, size: body.text.length, ...(more || body.truncated ? { truncated: true } : {}) });
      continue;
    }
    const { abs, rel } = await readable(services, a.path, 'The file');
    const file = await loadTextFile(abs, rel, { root: services.root });
    const whole = a.kind === 'selection' ? sliceLines(file.text, a.lines) : { text: file.text.replace(/^\uFEFF/, ''), total: 0 };
    const body = take(whole.text);
    const lines = a.kind === 'selection' ? ` lines="${a.lines[0]}-${Math.min(a.lines[1], whole.total)}"` : '';
    const note = body.truncated ? `\n[cut at ${body.text.length.toLocaleString('en-US')} of ${whole.text.length.toLocaleString('en-US')} characters; read_file shows the rest]` : '';
    const f = fence(body.text);
    blocks.push(`<attached_file path="${rel}"${lines}>\n${f}\n${body.text}\n${f}${note}\n</attached_file>`);
    views.push({ kind: a.kind, label: rel, path: rel, size: body.text.length, ...(a.kind === 'selection' ? { lines: a.lines } : {}), ...(body.truncated ? { truncated: true } : {}) });
    // The model saw the whole file as it is now: as good as a read_file for editing it.
    if (a.kind === 'file' && !body.truncated) opts.session?.recordRead(abs, file.hash);
  }
  const text = blocks.length ? `${prompt}\n\n${blocks.join('\n\n')}` : prompt;
  return { content: images.length ? [{ type: 'text', text }, ...images] : text, views };
}

/** The longest thumbnail kept with a sent message: a small picture, never the image again. */
export const THUMBNAIL_MAX_CHARS = 32_000;

/**
 * A client's thumbnail of an image, kept only as a small PNG, JPEG or WebP data URL (it is shown
 * in the transcript, so nothing else, and nothing large, is stored); anything else is dropped.
 */
export function thumbnailOf(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length > THUMBNAIL_MAX_CHARS) return undefined;
  return /^data:image\/(?:png|jpeg|webp);base64,[A-Za-z0-9+/]+={0,2}$/.test(v) ? v : undefined;
}
