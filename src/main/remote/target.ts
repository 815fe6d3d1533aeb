// Remote targets as people type them: `ssh://[user@]host[:port]/path` (as Zed's `zed ssh://…`) and
// `devcontainer:///path` (a folder of this machine with a dev container definition). What reaches
// `ssh` is checked here once: a host or user that could be read as an option (`-oProxyCommand=…`)
// or carry a shell word is refused, and ssh is always given `--` before the host.
import { InvalidArgumentError } from '../errors';

export type RemoteTarget =
  | { kind: 'ssh'; user: string | null; host: string; port: number | null; path: string; text: string }
  | { kind: 'devcontainer'; path: string; text: string };

// An ssh_config Host alias or a host name, an IPv4 address, or an IPv6 one in brackets.
const HOST = /^(?:[A-Za-z0-9_](?:[A-Za-z0-9._-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])$/;
const USER = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;

function fail(text: string, why: string): never {
  throw new InvalidArgumentError(`Not a remote folder Loupe can open: ${JSON.stringify(text)} (${why}). Use ssh://[user@]host[:port]/path or devcontainer:///path.`);
}

function decodePath(text: string, raw: string): string {
  let p: string;
  try {
    p = decodeURIComponent(raw);
  } catch {
    fail(text, 'the path is not valid percent-encoding');
  }
  if (p.includes('\0') || /[\r\n]/.test(p)) fail(text, 'the path holds a NUL or a line break');
  return p;
}

export function parseTarget(text: string): RemoteTarget {
  const t = text.trim();
  const ssh = /^ssh:\/\/(?:([^@/]*)@)?(\[[^\]]*\]|[^:/]*)(?::([^/]*))?(\/.*)?$/i.exec(t);
  if (ssh) {
    const [, user, host, port, rawPath] = ssh;
    if (user !== undefined && !USER.test(user)) fail(t, 'the user name has characters ssh would not take as one');
    if (!host || !HOST.test(host)) fail(t, 'the host name has characters a host name cannot have');
    let portNum: number | null = null;
    if (port !== undefined) {
      portNum = Number(port);
      if (!/^\d{1,5}$/.test(port) || portNum < 1 || portNum > 65535) fail(t, 'the port must be 1-65535');
    }
    // As Zed reads them: `ssh://host/srv/app` is /srv/app, `ssh://host/~/app` is in the home folder.
    let p = decodePath(t, rawPath ?? '/~');
    if (p === '/~' || p.startsWith('/~/')) p = p.slice(1);
    else if (p === '/') p = '~';
    return { kind: 'ssh', user: user ?? null, host, port: portNum, path: p, text: t };
  }
  const dc = /^devcontainer:\/\/(?:localhost)?(\/.*)$/i.exec(t);
  if (dc) {
    const p = decodePath(t, dc[1]);
    if (!p.startsWith('/')) fail(t, 'the folder must be an absolute path');
    return { kind: 'devcontainer', path: p, text: t };
  }
  if (/^devcontainer:\/\//i.test(t)) fail(t, 'a dev container folder is on this machine: devcontainer:///absolute/path');
  fail(t, 'it is neither ssh:// nor devcontainer://');
}

/** The destination for `ssh`: `user@host` or `host`, never starting with `-`. */
export function sshDestination(t: Extract<RemoteTarget, { kind: 'ssh' }>): string {
  const host = t.host.replace(/^\[|\]$/g, '');
  return t.user ? `${t.user}@${host}` : host;
}

/** The target as it is shown and remembered. */
export function formatTarget(t: RemoteTarget): string {
  if (t.kind === 'devcontainer') return `devcontainer://${encodeURI(t.path)}`;
  const where = `${t.user ? `${t.user}@` : ''}${t.host}${t.port ? `:${t.port}` : ''}`;
  return `ssh://${where}${encodeURI(t.path.startsWith('~') ? `/${t.path}` : t.path)}`;
}
