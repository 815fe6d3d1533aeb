// Every agent write asks the permission engine as kind `edit` right before it reaches the disk,
// with the change already computed: in "ask before every edit" mode (or under an `ask` rule) the
// person sees exactly what would be written, and nothing is written unless they allow it.
// Writes into `.loupe/` or `.git/` are refused before anyone is asked. `checkWrite` first asks the
// language server what the write would introduce, so the card can show it too.
import type { DiagnosticsView } from '../../../shared/contract';
import type { LanguageServers } from '../../services/lsp/languageServers';
import { foresee, type Foreseen, type LateSink } from './foresee';
import { ProtectedPathError } from '../../services/modlog/errors';
import { isProtectedPath } from '../../services/modlog/modificationLog';
import { unifiedDiff } from '../../services/modlog/unifiedDiff';
import { languageOf } from '../../services/workspace/language';
import type { PermissionGate } from '../../services/permissions/permissionGate';

/** Above this, the card shows the unified diff only; a diff editor of megabytes helps nobody. */
const MAX_SIDE_CHARS = 1_000_000;

export interface ProposedWrite {
  /** Workspace-relative path. */
  rel: string;
  tool: string;
  /** Current content; null when the file does not exist yet. */
  before: string | Buffer | null;
  /** Content to write; null to delete the file. */
  after: string | Buffer | null;
  signal?: AbortSignal;
  /** What the language server says the write introduces, for the card. */
  diagnostics?: DiagnosticsView;
}

const text = (b: string | Buffer | null): string | null => (b === null ? null : typeof b === 'string' ? b : b.toString('utf8'));

function describe(rel: string, before: string | null, after: string | null): string {
  if (before === null) return `create ${rel}`;
  if (after === null) return `delete ${rel}`;
  return `edit ${rel}`;
}

/** Resolves when the write may go ahead; throws PERMISSION_DENIED (with the person's message) otherwise. */
export async function authorizeWrite(ctx: { permissions: PermissionGate }, w: ProposedWrite): Promise<void> {
  // Refused whatever the answer, so nobody is asked.
  if (isProtectedPath(w.rel)) throw new ProtectedPathError(w.rel);
  const before = text(w.before);
  const after = text(w.after);
  const small = (before?.length ?? 0) <= MAX_SIDE_CHARS && (after?.length ?? 0) <= MAX_SIDE_CHARS;
  await ctx.permissions.authorize({
    query: { kind: 'edit', path: w.rel },
    tool: w.tool,
    summary: describe(w.rel, before, after),
    diff: () => unifiedDiff(w.rel, before, after),
    ...(small ? { edit: { path: w.rel, before, after, language: languageOf(w.rel), ...(w.diagnostics ? { diagnostics: w.diagnostics } : {}) } } : {}),
    signal: w.signal,
  });
}

/**
 * What the write would introduce (asked of the language server), then permission, whose card
 * shows it. A refusal puts the server's copy back; so must the caller when the write then fails.
 */
export async function checkWrite(ctx: { permissions: PermissionGate; lsp?: LanguageServers } & LateSink, w: ProposedWrite): Promise<Foreseen> {
  if (isProtectedPath(w.rel)) throw new ProtectedPathError(w.rel);
  const f = await foresee({ lsp: ctx.lsp, signal: w.signal, modlog: ctx.modlog, logger: ctx.logger }, w.rel, w.before, w.after);
  try {
    await authorizeWrite(ctx, { ...w, diagnostics: f.view });
  } catch (err) {
    f.abandon();
    throw err;
  }
  return f;
}
