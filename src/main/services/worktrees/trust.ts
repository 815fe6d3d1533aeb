// Workspace trust is given per folder and per exact bytes of its config (docs/security.md, "A
// cloned repository's rules"). A worktree is another folder, so without this a person who trusted
// the repository would have to trust every new worktree again. The main folder's trust carries
// over only to a worktree whose config files are byte for byte the ones trusted there; once a
// worktree's config differs (edited there, or another commit), it needs trust of its own.
import { readTrustState, trustCurrentConfig, type TrustStore } from '../permissions/trust';

/** Trusts `worktree` when `main` is trusted with the very config it holds; says whether it is trusted now. */
export async function carryTrust(main: string, worktree: string, store: TrustStore): Promise<boolean> {
  const own = await readTrustState(worktree, store);
  if (own.trusted) return true;
  const from = await readTrustState(main, store);
  if (!from.trusted || from.digest === null) return false;
  return (await trustCurrentConfig(worktree, store, from.digest)).trusted;
}
