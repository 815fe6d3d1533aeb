// Workspace trust. `.loupe/config.json` arrives with a clone, so what it grants (allow rules,
// test commands, language server commands: anything that runs code or widens access) applies only once the person has
// trusted this folder with these exact bytes. The trust is the sha256 of the file's bytes,
// kept per folder (realpath) in the user's settings: any change to the file needs trust again.
// Deny and ask rules only narrow, so they apply whether trusted or not.
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { readInside } from '../files/safeOpen';
import { CONFIG_REL, checkLoupeConfig } from '../config/loupeConfig';
import type { PermissionRule } from './types';

/** Where trust is kept: the user's settings (UserSettings), never the workspace. */
export interface TrustStore {
  trustedDigest(root: string): string | null;
  trust(root: string, digest: string): Promise<void>;
}

export const configDigest = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** What a project config would grant once trusted. */
export interface ProjectGrants {
  allow: PermissionRule[];
  tests: { language: string; command: string }[];
  /** Language servers the config names (`"lsp": {"go": {"command": [...]}}`). */
  servers: { language: string; command: string[] }[];
}

export interface TrustState {
  root: string;
  /** sha256 of the config bytes; null when the folder has no config. */
  digest: string | null;
  trusted: boolean;
  /** The config grants something that trust would turn on. */
  needed: boolean;
  grants: ProjectGrants;
}

/** The grants of a parsed config: exactly the allow rules and test commands the reader would apply. */
export function grantsOf(doc: unknown): ProjectGrants {
  const { value } = checkLoupeConfig(doc);
  const allow = (value.permissions ?? []).filter((r) => r.action === 'allow');
  const tests = Object.entries(value.tests ?? {}).map(([language, command]) => ({ language, command }));
  const servers = Object.entries(typeof value.lsp === 'object' ? value.lsp : {}).flatMap(([language, s]) => (s ? [{ language, command: s.command }] : []));
  return { allow, tests, servers };
}

export function parseGrants(bytes: Buffer): ProjectGrants {
  try {
    return grantsOf(JSON.parse(bytes.toString('utf8')));
  } catch {
    return { allow: [], tests: [], servers: [] };
  }
}

export const grantCount = (g: ProjectGrants): number => g.allow.length + g.tests.length + g.servers.length;

/** Trust of the config bytes `bytes` (null: no config) for `root`. */
export function trustOf(root: string, bytes: Buffer | null, store: TrustStore): TrustState {
  if (bytes === null) return { root, digest: null, trusted: true, needed: false, grants: { allow: [], tests: [], servers: [] } };
  const digest = configDigest(bytes);
  const grants = parseGrants(bytes);
  return { root, digest, trusted: store.trustedDigest(root) === digest, needed: grantCount(grants) > 0, grants };
}

/** The config's bytes, through real folders and never blocking on a FIFO; null when there are none to read. */
export async function readConfigBytes(root: string): Promise<Buffer | null> {
  try {
    return (await readInside(root, path.join(root, CONFIG_REL)))?.buf ?? null;
  } catch {
    return null;
  }
}

export async function readTrustState(root: string, store: TrustStore): Promise<TrustState> {
  const real = await realpath(root);
  return trustOf(real, await readConfigBytes(real), store);
}

/**
 * Trusts the folder with its config as it is now. `expected`: the digest the person was shown;
 * when the file changed since, nothing is trusted and the fresh state is returned.
 */
export async function trustCurrentConfig(root: string, store: TrustStore, expected?: string): Promise<TrustState> {
  const real = await realpath(root);
  const bytes = await readConfigBytes(real);
  const state = trustOf(real, bytes, store);
  if (state.digest === null || (expected !== undefined && expected !== state.digest)) return state;
  if (!state.trusted) await store.trust(real, state.digest);
  return { ...state, trusted: true };
}

export function describeGrants(g: ProjectGrants): string {
  const parts = [
    ...g.allow.map((r) => `allow ${r.kind} "${r.pattern}"`),
    ...g.tests.map((t) => `test command (${t.language}) "${t.command}"`),
    ...g.servers.map((t) => `language server (${t.language}) "${t.command.join(' ')}"`),
  ];
  return parts.length ? parts.join(', ') : 'nothing beyond the defaults';
}

/** The one line `loupe run | mcp | serve` print when they ignore a folder's grants. */
export function untrustedNotice(state: TrustState): string {
  return (
    `loupe: ignoring what ${path.join(state.root, CONFIG_REL)} allows (${describeGrants(state.grants)}): ` +
    `${state.root} is not trusted with this config. Trust it with --trust or \`loupe trust ${state.root}\`.`
  );
}
