// The language servers of the open folder as the app sees them (the `lsp.*` channels): their
// status for the status bar, and a file's problems for the viewer's markers, asked for the file
// as it is on disk now and pushed again whenever they change.
import type { FileProblemsView, HostEvents, LspStatusView } from '../../shared/contract';
import { problemView } from '../agent/edit/foresee';
import { readInside } from '../services/files/safeOpen';
import type { FileProblems, LanguageServers } from '../services/lsp/languageServers';
import type { ServerStatus } from '../services/lsp/types';
import { resolveInWorkspace } from '../services/workspace/pathGuard';
import { InvalidArgumentError } from '../errors';

type Emit = <E extends keyof HostEvents>(event: E, payload: HostEvents[E]) => void;

/** Above this a file is not sent to a server for the viewer (the agent's 10 MB cap is for edits). */
const MAX_LOOK_BYTES = 2 * 1024 * 1024;

const statusView = (s: ServerStatus): LspStatusView => ({ ...s, ...(s.typescript ? { typescript: { ...s.typescript } } : {}) });
const fileView = (p: FileProblems): FileProblemsView => ({ file: p.file, server: p.server, problems: p.problems.map((x) => problemView(x)) });

export class ProblemsHost {
  private readonly off: (() => void)[];

  constructor(
    private readonly root: string,
    private readonly lsp: LanguageServers,
    emit: Emit,
  ) {
    this.off = [lsp.onStatus((all) => emit('lsp.status', { servers: all.map(statusView) })), lsp.onProblems((p) => emit('lsp.problems', fileView(p)))];
  }

  status(): LspStatusView[] {
    return this.lsp.status().map(statusView);
  }

  /** Every file the servers checked, with its latest problems (files without any left out). */
  known(): FileProblemsView[] {
    return this.lsp
      .known()
      .filter((p) => p.problems.length > 0)
      .map(fileView);
  }

  async problems(requested: string): Promise<FileProblemsView> {
    const { abs, rel } = await resolveInWorkspace(this.root, requested);
    if (!rel) throw new InvalidArgumentError('Give a file path, not the workspace folder.');
    if (!(await this.lsp.serves(rel))) return { file: rel, server: null, problems: [] };
    // Through real folders only: a FIFO or a link out of the folder is never read for a server.
    const read = await readInside(this.root, abs, { rel, maxBytes: MAX_LOOK_BYTES }).catch(() => null);
    if (!read || read.buf.subarray(0, 8000).includes(0)) return { file: rel, server: null, problems: [], unavailable: 'not a text file the server can check' };
    const found = await this.lsp.problemsOf(rel, read.buf.toString('utf8'));
    if (!found) return { file: rel, server: null, problems: [] };
    if ('unavailable' in found) return { file: rel, server: found.server, problems: [], unavailable: found.unavailable };
    return { file: rel, server: found.server, problems: found.problems.map((p) => problemView(p)) };
  }

  dispose(): void {
    for (const f of this.off) f();
  }
}
