// An ACP prompt's content blocks as a Loupe request: text as the person's words; a `resource_link`
// to a workspace file or folder (a `#L10-20` fragment: those lines) as an attachment, read from
// the disk under the read rules like the chat's `@` mentions; an embedded `resource` (the
// editor's own copy, unsaved changes included) appended as an attached file once the read rules
// allow its path without asking; an image as an image attachment. What the rules refuse is
// refused with PERMISSION_DENIED and nothing is sent, as in the app.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { ChatAttachment } from '../../../shared/contract';
import { InvalidArgumentError } from '../../errors';
import { PermissionDeniedError } from '../../services/permissions/errors';
import type { PermissionAction } from '../../services/permissions/types';

/** Characters of one embedded resource's text sent to the model (as attached files are cut). */
export const EMBEDDED_CHARS = 50_000;

export interface PromptContext {
  /** The workspace-relative path of a client path, or null when it is outside the workspace. */
  relOf(clientPath: string): string | null;
  /** The read rules' action for a workspace path (an embedded resource needs `allow`). */
  readAction(rel: string): Promise<PermissionAction>;
}

export interface PromptRequest {
  text: string;
  attachments: ChatAttachment[];
}

interface FileRef {
  rel: string;
  lines?: [number, number];
}

/** A `file://` URI's workspace path and its line fragment (`#L10`, `#L10-20`, `#L10:20`, `#L10-L20`); null outside the workspace or not a file. */
export function fileRef(uri: string, ctx: PromptContext): FileRef | null {
  if (!/^file:/i.test(uri)) return null;
  const hash = uri.indexOf('#');
  let abs: string;
  try {
    abs = fileURLToPath(hash === -1 ? uri : uri.slice(0, hash));
  } catch {
    return null;
  }
  const rel = ctx.relOf(abs);
  if (rel === null) return null;
  const m = hash === -1 ? null : /^L(\d+)(?:[-:]L?(\d+))?$/.exec(uri.slice(hash + 1));
  if (!m) return { rel };
  const a = Number(m[1]);
  const b = m[2] ? Number(m[2]) : a;
  return a >= 1 && b >= a ? { rel, lines: [a, b] } : { rel };
}

const fence = (text: string): string => {
  let ticks = '```';
  while (text.includes(ticks)) ticks += '`';
  return ticks;
};

/** A mention placed in the words: a space before it unless one is there. */
const glue = (text: string, mention: string) => (!text || /\s$/.test(text) ? text + mention : `${text} ${mention}`);

const attr = (s: string) => s.replace(/"/g, '&quot;');

export async function promptRequest(blocks: ContentBlock[], ctx: PromptContext): Promise<PromptRequest> {
  let text = '';
  const attachments: ChatAttachment[] = [];
  const context: string[] = [];
  let mentioned = false;
  for (const b of blocks) {
    switch (b.type) {
      case 'text':
        // Words right after a mention go on after a space.
        text += mentioned && /^[^\s.,;:!?)]/.test(b.text) ? ` ${b.text}` : b.text;
        mentioned = false;
        break;
      case 'resource_link': {
        const ref = fileRef(b.uri, ctx);
        mentioned = true;
        if (!ref) {
          text = glue(text, `[${b.name}](${b.uri})`);
          break;
        }
        text = glue(text, `@${ref.rel || '.'}`);
        // A folder is attached as its listing; the host tells a file from a folder by the path.
        const kind = b.mimeType === 'inode/directory' || b.uri.endsWith('/') ? 'dir' : 'file';
        attachments.push(ref.lines ? { kind: 'selection', path: ref.rel, lines: ref.lines } : { kind, path: ref.rel });
        break;
      }
      case 'resource': {
        const r = b.resource;
        if ('blob' in r) {
          if (r.mimeType?.startsWith('image/')) attachments.push({ kind: 'image', name: path.basename(r.uri) || 'image', media_type: r.mimeType, data: r.blob });
          else context.push(`[${r.uri}: ${r.mimeType ?? 'binary'} content, not sent]`);
          break;
        }
        const ref = fileRef(r.uri, ctx);
        if (/^file:/i.test(r.uri) && !ref) throw new PermissionDeniedError(`${r.uri} is outside the workspace, so it cannot be attached. Attach files of the workspace, or paste the text.`, { denied_by: 'default' });
        if (ref) {
          const action = await ctx.readAction(ref.rel);
          if (action !== 'allow') {
            throw new PermissionDeniedError(`${ref.rel} cannot be attached: a read rule ${action === 'deny' ? 'denies' : 'asks before'} reading it. Change the rule in the settings or .loupe/config.json to allow it.`, { denied_by: 'rule' });
          }
        }
        const body = r.text.length > EMBEDDED_CHARS ? `${r.text.slice(0, EMBEDDED_CHARS)}\n[cut at ${EMBEDDED_CHARS} of ${r.text.length} characters]` : r.text;
        const f = fence(body);
        const where = ref ? `path="${attr(ref.rel)}"${ref.lines ? ` lines="${ref.lines[0]}-${ref.lines[1]}"` : ''}` : `uri="${attr(r.uri)}"`;
        context.push(`<attached_file ${where} source="editor">\n${f}\n${body}\n${f}\n</attached_file>`);
        break;
      }
      case 'image':
        attachments.push({ kind: 'image', name: b.uri ? path.basename(b.uri) : 'image', media_type: b.mimeType, data: b.data });
        break;
      default:
        throw new InvalidArgumentError(`Loupe does not take ${b.type} content in a prompt (it takes text, images, and links to or content of files).`);
    }
  }
  text = text.trim();
  if (context.length) text = `${text || 'See the attached files.'}\n\n${context.join('\n\n')}`;
  if (!text && attachments.length) text = 'See the attached files.';
  if (!text) throw new InvalidArgumentError('The prompt is empty: type a message first.');
  return { text, attachments };
}
