// `npm run bench`: every bench/*.bench.mjs in turn, against the built app.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
if (!existsSync(path.join(here, '..', 'out', 'main', 'cli.js'))) {
  console.error('bench: build first (`npm run build`).');
  process.exit(1);
}
const only = process.argv[2];
let failed = 0;
for (const file of readdirSync(here).filter((f) => f.endsWith('.bench.mjs')).sort()) {
  if (only && !file.includes(only)) continue;
  const r = spawnSync(process.execPath, [path.join(here, file)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.error(`bench: ${file} failed (${r.status})`);
  }
}
process.exit(failed ? 1 : 0);
