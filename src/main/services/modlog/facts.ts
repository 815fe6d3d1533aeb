// Facts appended about a modification, never rewrites of it: the person's verdict (approved),
// test results for a correlation's modifications, the language server's problems when they came
// after the write's bound; and "commit approved", a commit of exactly
// the approved after-contents, built in a private index so whatever else the user has staged
// stays staged and out of the commit.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LoupeError } from '../../errors';
import { sha256 } from '../files/hash';
import { AlreadyRolledBackError } from './errors';
import { statusOf, type Folded } from './fold';
import type { ModificationLog } from './modificationLog';
import { findModification } from './rollback';
import type { DiagnosticsView } from '../../../shared/contract';
import type { TestResultsLine } from './types';

export async function approveModification(log: ModificationLog, id: string): Promise<void> {
  const { target } = await findModification(log, id);
  if (target.rolledBackBy) throw new AlreadyRolledBackError(id, target.rolledBackBy);
  if (target.approved) return;
  await log.appendFact({ type: 'review', modification_id: id, verdict: 'approved', timestamp: new Date().toISOString() });
}

/** The problems a modification introduced, as the server said once it could (after the write's bound). */
export async function recordDiagnostics(log: ModificationLog, id: string, diagnostics: DiagnosticsView): Promise<void> {
  await log.appendFact({ type: 'diagnostics', modification_id: id, diagnostics, timestamp: new Date().toISOString() });
}

export type TestFacts = Omit<TestResultsLine, 'type' | 'modification_id' | 'timestamp' | 'correlation_id'>;

/** Appends the results to every modification of the correlation; returns their ids. */
/**
 * The results belong to the edits the run tested: `exceptGroup` leaves out what the run itself
 * wrote (a cache, a snapshot file), which the tests did not test.
 */
export async function recordTestResults(log: ModificationLog, correlationId: string, facts: TestFacts, exceptGroup?: string | null): Promise<string[]> {
  const fold = await log.index().sync();
  const ids = fold
    .ofCorrelation(correlationId)
    .filter((f) => !exceptGroup || f.group !== exceptGroup)
    .map((f) => f.id);
  const timestamp = new Date().toISOString();
  for (const id of ids) await log.appendFact({ type: 'test_results', modification_id: id, correlation_id: correlationId, ...facts, timestamp });
  return ids;
}

export class NothingToCommitError extends LoupeError {
  constructor(why: string) {
    super('INVALID_ARGUMENT', why);
  }
}

export interface CommitOutcome {
  commit: string;
  files: string[];
}

/**
 * Files qualify when they have an approved modification and every live modification of them
 * is approved; the commit holds each such file's latest after-content, nothing else.
 */
export async function commitApproved(log: ModificationLog, message: string): Promise<CommitOutcome> {
  const git = await log.git();
  if (!git) throw new NothingToCommitError('This folder is not a git repository, so there is nothing to commit to. Run `git init` first.');
  const fold = await log.index().sync();
  const files = fold.filesWith('approved');
  const pending = files.flatMap((file) => fold.ofFile(file).filter((f) => statusOf(f) === 'applied').map((f) => `${f.entry.modification_id} (${file})`));
  if (!files.length) throw new NothingToCommitError('No modification is approved yet. Approve the ones to keep, then commit.');
  if (pending.length) throw new NothingToCommitError(`Not every modification of these files is approved: ${pending.join(', ')}. Approve or roll them back first.`);
  const latest = (file: string): Folded => fold.ofFile(file).filter((f) => statusOf(f) !== 'rolled_back').pop()!;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-commit-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
    const head = (await git.raw(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => '')).trim();
    if (head) await git.raw(['read-tree', head], env);
    for (const file of files) {
      const sha = latest(file).entry.after_sha256;
      if (sha === null) {
        await git.raw(['update-index', '--verbose', '--force-remove', '--', file], env);
        continue;
      }
      // git would follow a link planted in the blob store: it hashes a checked copy instead.
      const copy = path.join(dir, 'blob');
      await writeFile(copy, await log.blobs.get(sha));
      const oid = (await git.raw(['hash-object', '-w', '--no-filters', copy])).trim();
      const mode = (await git.entryOf(file))?.mode ?? '100644';
      await git.raw(['update-index', '--verbose', '--add', '--cacheinfo', `${mode},${oid},${file}`], env);
    }
    const tree = (await git.raw(['write-tree'], env)).trim();
    // A second click, or work committed by hand: no empty commit.
    if (head && tree === (await git.raw(['rev-parse', `${head}^{tree}`])).trim()) {
      throw new NothingToCommitError(`HEAD (${head.slice(0, 7)}) already holds the approved changes of ${files.join(', ')}; there is nothing new to commit.`);
    }
    const commit = (await git.raw(['commit-tree', tree, ...(head ? ['-p', head] : []), '-m', message], env)).trim();
    await git.raw(['update-ref', '-m', `loupe: ${message.split('\n')[0]}`, 'HEAD', commit, ...(head ? [head] : [])]);
    return { commit, files };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What `committedIds` learnt of one file at one HEAD, so a timeline refresh asks git again only when either moved. */
export type CommittedCache = Map<string, { head: string; sha: string | null; holds: boolean }>;

/**
 * Approved modifications already in HEAD: their file's latest live modification is approved and
 * HEAD holds its after-content (a commit from here, or by hand). "Commit approved" has nothing
 * left to do for them, so the timeline no longer counts them.
 */
export async function committedIds(log: ModificationLog, cache: CommittedCache = new Map()): Promise<Set<string>> {
  const out = new Set<string>();
  const git = await log.git();
  if (!git) return out;
  const fold = await log.index().sync();
  const files = fold.filesWith('approved');
  if (!files.length) return out;
  const head = (await git.raw(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => '')).trim();
  if (!head) return out;
  for (const file of files) {
    const live = fold.ofFile(file).filter((f) => statusOf(f) !== 'rolled_back');
    const latest = live[live.length - 1];
    if (!latest || statusOf(latest) !== 'approved') continue;
    const sha = latest.entry.after_sha256;
    let known = cache.get(file);
    if (!known || known.head !== head || known.sha !== sha) {
      const blob = await git.blob(head, file).catch(() => undefined);
      if (blob === undefined) continue;
      known = { head, sha, holds: sha === null ? blob === null : blob !== null && sha256(blob) === sha };
      cache.set(file, known);
    }
    if (known.holds) for (const f of live) if (statusOf(f) === 'approved') out.add(f.id);
  }
  return out;
}
