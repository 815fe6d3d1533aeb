// The rule an "allow always" answer writes: wide enough to stop asking about the same kind
// of thing, narrow enough to read on the card and mean what it says.
import { stat } from 'node:fs/promises';
import path from 'node:path';

/** How many words name the action: `git status`, `npm run build`, `docker compose up`. */
const ARITY: Record<string, number> = {
  git: 2, cargo: 2, go: 2, kubectl: 2, pip: 2, pip3: 2, poetry: 2, uv: 2, brew: 2, apt: 2, 'apt-get': 2,
  systemctl: 2, dotnet: 2, mvn: 2, gradle: 2, npx: 2, pnpx: 2, bunx: 2, deno: 2, rustup: 2, make: 2,
  npm: 2, yarn: 2, pnpm: 2, bun: 2, docker: 2, gh: 3,
};
/** Sub-commands that take one more word: `npm run <script>`, `docker compose <verb>`. */
const RUNNERS = new Set(['npm run', 'yarn run', 'pnpm run', 'bun run', 'npm exec', 'docker compose', 'go tool']);

export function alwaysCommandPattern(text: string): string {
  const words = text.split(' ').filter(Boolean);
  if (!words.length) return text;
  let arity = ARITY[words[0]] ?? 1;
  if (words.length > 1 && RUNNERS.has(`${words[0]} ${words[1]}`)) arity = 3;
  const head = words.slice(0, arity);
  // A flag before the action (`git -C x push`) would make a prefix rule far wider than it reads.
  if (head.some((w, i) => i > 0 && w.startsWith('-'))) return text;
  return `${head.join(' ')} *`;
}

/** The folder to allow for an outside path: itself if it is a folder, else its parent. */
export async function alwaysFolderPattern(abs: string): Promise<string> {
  let dir = path.dirname(abs);
  try {
    if ((await stat(abs)).isDirectory()) dir = abs;
  } catch {}
  return dir === '/' ? '/**' : `${dir}/**`;
}

export function alwaysUrlPattern(url: URL): string {
  return `${url.origin}/*`;
}
