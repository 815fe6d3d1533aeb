// Which folder did the user ask for on the command line? Pure, for tests.
import path from 'node:path';

/**
 * The folder argument of `loupe [folder]` / `electron . [folder]`, resolved against `cwd`,
 * or null. Switches (`--inspect=0`, Chromium flags, `--no-sandbox`) are skipped; in an
 * unpackaged run the first positional argument is the app path (`.`) and is skipped too.
 */
export function folderFromArgv(argv: readonly string[], isPackaged: boolean, cwd: string): string | null {
  const positionals = argv.slice(1).filter((a) => a !== '' && !a.startsWith('-'));
  if (!isPackaged) positionals.shift();
  const folder = positionals[0];
  return folder ? path.resolve(cwd, folder) : null;
}
