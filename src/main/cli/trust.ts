// Workspace trust on the command line: `--trust` on run, mcp and serve trusts the folder with
// its config as it is now (and remembers it); without it an untrusted config's grants are
// ignored, and one line on stderr says so. `loupe trust [folder]` records trust and nothing else.
import path from 'node:path';
import { InvalidArgumentError } from '../errors';
import { CONFIG_REL, MCP_JSON_REL } from '../services/permissions/projectConfig';
import { describeGrants, readTrustState, trustCurrentConfig, untrustedNotice, type TrustState } from '../services/permissions/trust';
import { defaultConfigDir } from '../services/settings/configDir';
import type { UserSettings } from '../services/settings/userSettings';
import { openUserSettings } from '../workspace/compose';
import { parseArgs } from './args';
import { workspaceRoot } from './workspaceRoot';

const trustedLine = (s: TrustState): string =>
  s.digest === null
    ? `loupe: ${s.root} has no ${CONFIG_REL} or ${MCP_JSON_REL}; there is nothing to trust.`
    : `loupe: trusted ${s.root} with ${s.files.join(' and ')} (sha256 ${s.digest.slice(0, 12)}…): ${describeGrants(s.grants)}.`;

/** Before a command starts: trust now (`--trust`), or say what is being ignored. */
export async function settleTrust(root: string, trust: boolean, say: (line: string) => void, store: UserSettings): Promise<TrustState> {
  if (trust) {
    const state = await trustCurrentConfig(root, store);
    if (state.digest !== null) say(trustedLine(state));
    return state;
  }
  const state = await readTrustState(root, store);
  if (!state.trusted && state.needed) say(untrustedNotice(state));
  return state;
}

/** `loupe trust [folder]` */
export async function runTrust(args: string[]): Promise<number> {
  const { positionals } = parseArgs(args, {});
  if (positionals.length > 1) throw new InvalidArgumentError('Usage: loupe trust [folder]');
  const root = await workspaceRoot(positionals[0] ? path.resolve(positionals[0]) : undefined);
  const state = await trustCurrentConfig(root, openUserSettings(defaultConfigDir()));
  process.stdout.write(`${trustedLine(state)}\n`);
  return 0;
}
