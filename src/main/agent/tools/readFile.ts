// read_file: numbered `cat -n` style by default, plain with offset or
// limit, a 2000-line window, long lines cut. Records the content hash for read-first checks.
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { sha256 } from '../../services/files/hash';
import { expandHome } from '../../services/permissions/patterns';
import { homeRelative } from '../../services/skills/places';
import { MAX_FILE_BYTES, decodeUtf8, loadTextFile } from '../../services/files/textFile';
import { NotAFileError } from '../../services/files/errors';
import { numberLines } from '../../services/files/lineNumbers';
import { languageOf } from '../../services/workspace/language';
import { isInside, resolveInWorkspace } from '../../services/workspace/pathGuard';
import { defineTool, READS_WORKSPACE, success, type ToolContext } from './types';
import { absolute, defined, fromHookPath, take } from './claudeShapes';

export const DEFAULT_LINE_WINDOW = 2000;
export const MAX_LINE_CHARS = 2000;

const schema = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace (absolute paths only inside it, or in the folder of one of the person\u2019s own skills).'),
  offset: z.number().int().min(0).optional().describe('1-based line to start at.'),
  limit: z.number().int().min(1).optional().describe(`Number of lines to return (default ${DEFAULT_LINE_WINDOW}).`),
  line_numbers: z.boolean().optional().describe('Prefix lines with their numbers. Default: true without offset/limit, false with them.'),
});

/** Lines of the text as an editor shows them: no BOM, no CR, no phantom line after a final newline. */
export function splitLines(text: string): string[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  if (body === '') return [];
  const lines = body.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

/**
 * A file in the folder of one of the person's own skills, outside the workspace: the skill tool
 * lists such files and the agent reads them without asking (docs/security.md). Only real paths
 * inside the skill's real folder; null for anything else, which the workspace rules then judge.
 */
async function personalSkillFile(ctx: ToolContext, requested: string): Promise<{ abs: string; dir: string; shown: string } | null> {
  if (!ctx.skills) return null;
  const named = expandHome(requested);
  if (!path.isAbsolute(named) || isInside(ctx.root, path.resolve(named))) return null;
  const real = await realpath(named).catch(() => null);
  if (!real) return null;
  const skill = await ctx.skills.personalFolderOf(real);
  return skill ? { abs: real, dir: skill.dir, shown: homeRelative(real) } : null;
}

const cut = (line: string) => (line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}… [${line.length - MAX_LINE_CHARS} more characters]` : line);

const outputSchema = z.looseObject({
  path: z.string(),
  language: z.string(),
  total_lines: z.number().int(),
  lines: z.tuple([z.number().int(), z.number().int()]).describe('First and last line shown; [0, 0] when none.'),
});

/** Editors keep a buffer without its BOM and with LF lines: that alone is no unsaved change. */
const sameText = (a: string, b: string) => a === b || a.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n') === b.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');

/** The editor's text when it differs from the disk's and is text Loupe would read; else null. */
async function editorText(ctx: ToolContext, abs: string, disk: string): Promise<string | null> {
  if (!ctx.buffers) return null;
  const text = await ctx.buffers.read(abs, ctx.signal).catch(() => null);
  if (text === null || sameText(text, disk) || text.includes('\0') || Buffer.byteLength(text, 'utf8') > MAX_FILE_BYTES) return null;
  return text;
}

export const readFileTool = defineTool({
  name: 'read_file',
  title: 'Read file',
  ...READS_WORKSPACE,
  summary: (args) => args.path,
  paths: (args) => [args.path],
  outputSchema,
  description:
    'Read a text file of the workspace. Returns `cat -n` style numbered lines (`     N→text`) by default; with offset/limit, plain lines ' +
    `(set line_numbers to keep numbers). At most ${DEFAULT_LINE_WINDOW} lines per call. A file must be read before write_file or edit_file may change it.`,
  schema,
  claudeCode: {
    name: 'Read',
    input: (a, root) => defined({ file_path: absolute(root, a.path), offset: a.offset, limit: a.limit }),
    args: (i, was, root) => ({ ...was, path: fromHookPath(root, i.file_path, was.path), offset: take(i, 'offset', was.offset), limit: take(i, 'limit', was.limit) }),
  },
  async run(args, ctx) {
    const own = await personalSkillFile(ctx, args.path);
    const { abs, rel } = own ? { abs: own.abs, rel: own.shown } : await resolveInWorkspace(ctx.root, args.path);
    if (rel === '') throw new NotAFileError(rel);
    // Reads are allowed by default, but a user's deny rule (`.env`, `secrets/**`) must hold here too.
    if (!own) await ctx.permissions.authorize({ query: { kind: 'read', path: rel }, tool: 'read_file', summary: `read ${rel}`, signal: ctx.signal });
    const file = await loadTextFile(abs, rel, { lossy: true, root: own ? own.dir : ctx.root });
    // The person's editor may hold changes not saved yet: the model reads what the person sees.
    // Checked like the disk (the same path, rules and limits above), and recorded as what was read,
    // so an edit based on it is refused while the disk differs (FILE_CHANGED_SINCE_READ).
    // (A personal skill's file is outside the workspace the editor holds: the disk is what there is.)
    const unsaved = own ? null : await editorText(ctx, abs, file.text);
    const text = unsaved ?? file.text;
    ctx.session.recordRead(abs, unsaved === null ? file.hash : sha256(unsaved));
    // The first file of a language starts its server, so the first write finds it warm.
    if (!own) ctx.lsp?.warm(rel, text);
    const all = splitLines(text);
    const first = Math.max(1, args.offset ?? 1);
    const shown = all.slice(first - 1, first - 1 + (args.limit ?? DEFAULT_LINE_WINDOW)).map(cut);
    const last = shown.length ? first + shown.length - 1 : 0;
    const numbered = args.line_numbers ?? (args.offset === undefined && args.limit === undefined);
    const notes: string[] = [];
    if (unsaved !== null) notes.push('This is the editor\'s copy, with changes not saved yet; the file on disk differs, and edits apply to the file on disk.');
    else if (decodeUtf8(file.buf) === null) notes.push('The file is not valid UTF-8; it is shown with replacement characters and cannot be edited as text.');
    if (all.length === 0) notes.push('The file is empty.');
    else if (shown.length === 0) notes.push(`Offset ${first} is past the end: the file has ${all.length} lines.`);
    const window = shown.length && (first > 1 || last < all.length) ? `Showing lines ${first}-${last} of ${all.length}.` : null;
    const body = numbered ? numberLines(shown, first) : shown.join('\n');
    const git = own ? null : await ctx.modlog.git();
    // The model is told how to read on; the person scrolls the file in the viewer instead.
    const said = (next: string) => [body, ...[...notes, ...(window ? [`${window}${next}`] : [])].map((n) => `[${n}]`)].filter(Boolean).join('\n');
    return {
      ...success(said(last < all.length ? ` Call read_file with offset=${last + 1} for more.` : ''), {
        path: rel,
        language: languageOf(rel),
        total_lines: all.length,
        lines: shown.length ? [first, last] : [0, 0],
        git_status: git ? await git.statusOf(rel) : null,
      }),
      ...(window && last < all.length ? { for_person: said('') } : {}),
    };
  },
});
