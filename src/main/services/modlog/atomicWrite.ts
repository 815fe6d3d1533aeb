// Write-then-rename for files outside any workspace (the user's settings): the temp file is made
// next to the target without following links and renamed within the same held folder
// (files/safeWrite), so a crash leaves the old bytes or the new ones, never a mix.
import path from 'node:path';
import { sweepTempsInside, writeAtomicInside } from '../files/safeWrite';

/** `mode` keeps an existing file's permission bits; new files get the usual 0666 & ~umask. */
export function writeFileAtomic(abs: string, data: Buffer, mode?: number): Promise<void> {
  return writeAtomicInside(path.dirname(abs), abs, data, { mode });
}

/** Removes temp files a killed writer left next to `abs` (callers hold the file's lock). */
export function sweepStaleTemps(abs: string): Promise<number> {
  return sweepTempsInside(path.dirname(abs), abs);
}
