// A pretend home folder next to the workspace, full of bait, and a way to see whether anything
// in it changed: every entry's kind, bytes and mode, recursively, links not followed.
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SECRET = 'TOP-SECRET-7f3a9c0e-never-leaves-home';

/** Creates `<sandbox>/home` with bait files and folders; returns its path. */
export function makeHome(sandbox: string): string {
  const home = path.join(sandbox, 'home');
  mkdirSync(path.join(home, 'dir', 'objects'), { recursive: true });
  mkdirSync(path.join(home, 'info'), { recursive: true });
  writeFileSync(path.join(home, '.bashrc'), `export PS1='$ '\n# ${SECRET}\n`);
  writeFileSync(path.join(home, 'secret.txt'), `${SECRET}\n`);
  writeFileSync(path.join(home, 'dir', 'note.txt'), `${SECRET} in dir\n`);
  writeFileSync(path.join(home, 'info', 'exclude'), `# ${SECRET}\n`);
  writeFileSync(path.join(home, 'old.log'), `${SECRET} log\n`);
  return home;
}

/** Every entry under `dir` as `rel -> description`, links described, never followed. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (abs: string, rel: string) => {
    for (const name of readdirSync(abs).sort()) {
      const a = path.join(abs, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(a);
      if (st.isSymbolicLink()) out[r] = `link ${readlinkSync(a)}`;
      else if (st.isDirectory()) {
        out[r] = `dir ${(st.mode & 0o7777).toString(8)}`;
        walk(a, r);
      } else out[r] = `file ${(st.mode & 0o7777).toString(8)} ${st.size} ${st.mtimeMs} ${readFileSync(a).toString('base64')}`;
    }
  };
  walk(dir, '');
  return out;
}
