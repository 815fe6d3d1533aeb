#!/usr/bin/env node
// Entry of the `loupe` command. Runs the built CLI bundle with plain Node (no Electron).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('loupe: not built yet. Run `npm run build` in the Loupe checkout first.\n');
  process.exit(1);
}
const { main } = await import(pathToFileURL(cli).href);
const rendererDir = fileURLToPath(new URL('../out/renderer', import.meta.url));
const code = await main(process.argv.slice(2), { rendererDir });
if (code >= 0) process.exitCode = code;
