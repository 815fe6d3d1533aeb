#!/usr/bin/env -S node --max-semi-space-size=4
// Entry of the `loupe` command. Runs the built CLI bundle with plain Node (no Electron).
// The young generation is capped at 4 MB a half (V8's default grows to 16): `loupe serve` on a
// 100,000-file folder then holds ~119 MB instead of ~141 (its index is built in short-lived
// batches, so the default's extra 24 MB is mostly garbage waiting). V8 reads the flag only at
// start, hence the shebang (`env -S`; npm's Windows shim passes it on too).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('loupe: not built yet. Run `npm run build` in the Loupe checkout first.\n');
  process.exit(1);
}
const { main } = await import(pathToFileURL(cli).href);
const rendererDir = fileURLToPath(new URL('../out/renderer', import.meta.url));
const bundleDir = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');
const code = await main(process.argv.slice(2), { rendererDir, bundleDir });
if (code >= 0) process.exitCode = code;
