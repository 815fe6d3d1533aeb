// Child process for the crash-safety test: rewrites one file through ModificationLog.apply()
// as fast as it can, alternating two contents, and reports each completed write on stdout.
import path from 'node:path';
import { ModificationLog } from '../../src/main/services/modlog/modificationLog';

export const contentFor = (i: number): string => `${i % 2 ? 'B' : 'A'}`.repeat(512 * 1024) + '\n';

async function main(): Promise<void> {
  const [root, file] = process.argv.slice(2);
  const log = new ModificationLog(root);
  for (let i = 1; ; i++) {
    await log.apply({ file, abs: path.join(root, file), content: Buffer.from(contentFor(i)), tool: 'write_file', operation: 'overwrite', sessionId: 'crash' });
    process.stdout.write(`wrote ${i}\n`);
  }
}

if (process.argv[1]?.endsWith('crash-writer.mjs')) void main();
