// Pattern matching for rules. Commands and URLs: `*` is any text. Paths: a glob where `*`
// stays inside one folder and `**` crosses folders. Everything else matches itself.
import os from 'node:os';

const cache = new Map<string, RegExp>();
const escape = (s: string) => s.replace(/[.+^${}()|[\]\\?*]/g, '\\$&');

function compiled(key: string, build: () => string, flags = 's'): RegExp {
  let re = cache.get(key);
  if (!re) {
    re = new RegExp(`^${build()}$`, flags);
    if (cache.size > 500) cache.clear();
    cache.set(key, re);
  }
  return re;
}

/**
 * `git status` matches exactly that; `npm run test:*` any script starting with test:;
 * a trailing ` *` also matches the bare command (`git *` matches `git`).
 */
export function matchCommand(pattern: string, command: string): boolean {
  const re = compiled(`c:${pattern}`, () => {
    const body = pattern.split('*').map(escape).join('.*');
    return pattern.endsWith(' *') ? `${body.slice(0, -3)}(?: .*)?` : body;
  });
  return re.test(command);
}

/**
 * An MCP tool, `server/tool`: `*` is any text (`github/*`; `read_*` after any server); a pattern without a slash
 * names a whole server. `anyCase`: for deny and ask rules, which no spelling may sidestep.
 */
export function matchTool(pattern: string, subject: string, anyCase = false): boolean {
  const full = pattern.includes('/') ? pattern : `${pattern}/*`;
  return compiled(`t${anyCase ? 'i' : ''}:${full}`, () => full.split('*').map(escape).join('.*'), anyCase ? 'si' : 's').test(subject);
}

export function matchUrl(pattern: string, url: string): boolean {
  return compiled(`u:${pattern}`, () => pattern.split('*').map(escape).join('.*')).test(url);
}

function globToRegex(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      // `a/**` also matches the folder `a` itself; `**/x` matches `x` at any depth.
      if (out.endsWith('/') && i + 2 === glob.length) out = `${out.slice(0, -1)}(?:/.*)?`;
      else out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '{') {
      const end = glob.indexOf('}', i);
      if (end === -1) out += '\\{';
      else {
        out += `(?:${glob.slice(i + 1, end).split(',').map(escape).join('|')})`;
        i = end;
      }
    } else out += escape(c);
  }
  return out;
}

export function expandHome(p: string): string {
  if (p === '~') return os.homedir();
  return p.startsWith('~/') ? os.homedir() + p.slice(1) : p;
}

export function matchPath(pattern: string, candidate: string): boolean {
  return pathMatcher(pattern)(candidate);
}

/** matchPath with the pattern fixed: compiled once, for checking many paths. */
export function pathMatcher(pattern: string): (candidate: string) => boolean {
  const glob = expandHome(pattern);
  return tester(compiled(`p:${glob}`, () => globToRegex(glob)));
}

/**
 * Does a deny or ask rule reach this path? More than matchPath, because a rule that keeps
 * something away must not be sidestepped by spelling: case is ignored (on macOS and Windows
 * `.ENV` is `.env`), a folder's rule covers what is inside it, and a pattern without a slash
 * names a file or folder at any depth, as in .gitignore (`.env` also covers `app/.env`).
 */
export function coversPath(pattern: string, candidate: string): boolean {
  return pathCoverer(pattern)(candidate);
}

/** coversPath with the pattern fixed: one regex test per path, for the paths a search lists. */
export function pathCoverer(pattern: string): (candidate: string) => boolean {
  // `./.env` means the workspace's .env.
  const glob = expandHome(pattern).replace(/^(\.\/)+/, '');
  // A leading part (`a/b` of `a/b/c`) matches exactly when the whole path is that part plus
  // nothing or `/…`. A slash-free pattern also names a file or folder at any depth; without
  // `**` its regex cannot cross a slash, so some name matches exactly when `(…/)name(/…)` does.
  if (glob.includes('/')) return tester(compiled(`pi:${glob}`, () => `(?:${globToRegex(glob)})(?:/.*)?`, 'si'));
  if (!glob.includes('**')) return tester(compiled(`pn:${glob}`, () => `(?:.*/)?(?:${globToRegex(glob)})(?:/.*)?`, 'si'));
  const re = compiled(`pa:${glob}`, () => globToRegex(glob), 'si');
  return (candidate) => {
    // `**` crosses slashes: each leading part and each name, found by slash positions.
    let end = candidate.length;
    for (;;) {
      const start = end === 0 ? 0 : candidate.lastIndexOf('/', end - 1) + 1;
      if (re.test(candidate.slice(0, end)) || re.test(candidate.slice(start, end))) return true;
      if (start === 0) return false;
      end = start - 1;
    }
  };
}

const tester = (re: RegExp) => (candidate: string) => re.test(candidate);
