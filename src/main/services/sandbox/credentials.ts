// The user's secrets a sandboxed command must not read, wherever it runs from.
import path from 'node:path';

export const CREDENTIAL_PATHS = [
  '.ssh', '.aws', '.config/gh', '.netrc', '.npmrc', '.docker/config.json', '.git-credentials', '.gnupg', '.kube',
  '.config/gcloud', '.azure', '.pypirc', '.cargo/credentials', '.cargo/credentials.toml', '.config/hub', '.password-store',
  '.local/share/keyrings', '.yarnrc', '.gem/credentials', '.terraform.d/credentials.tfrc.json', '.vault-token',
] as const;

export function credentialPaths(home: string): string[] {
  return CREDENTIAL_PATHS.map((p) => path.join(home, p));
}
