// Stand-ins for the OS keychain tools, as real executables on a PATH: `secret-tool` (libsecret)
// and `security` (macOS). They keep secrets in files of a temp folder, so tests never touch a real keyring.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// POSIX sh, so each call costs a few milliseconds, not a Node start.
const COMMON = `#!/bin/sh
store="$STANDIN_KEYRING"
mkdir -p "$store"
printf '%s\n' "$*" >> "$store.argv"
if [ -n "$STANDIN_KEYRING_LOCKED" ]; then
  echo 'Cannot create an item in a locked collection' >&2
  exit 1
fi
`;

const SECRET_TOOL = `${COMMON}
cmd=$1; shift
id=""
for a in "$@"; do case "$a" in --*) ;; *) id="$id $a" ;; esac; done
f="$store/$(printf '%s' "$id" | tr ' /' '__')"
case "$cmd" in
  store) cat > "$f" ;;
  lookup) [ -f "$f" ] || exit 1; cat "$f" ;;
  clear) rm -f "$f" ;;
  *) echo usage >&2; exit 2 ;;
esac
`;

// Enough of security(1): find/delete-generic-password, and "-i" reading add-generic-password -X.
const SECURITY = `${COMMON}
arg() { flag=$1; shift; while [ $# -gt 0 ]; do if [ "$1" = "$flag" ]; then printf '%s' "$2"; return; fi; shift; done; }
case "$1" in
  -i)
    while IFS= read -r line; do
      eval "set -- $line"
      [ "$1" = add-generic-password ] || { echo 'unknown command' >&2; exit 1; }
      perl -e 'print pack("H*", $ARGV[0])' "$(arg -X "$@")" > "$store/$(arg -s "$@")_$(arg -a "$@")"
    done ;;
  find-generic-password)
    f="$store/$(arg -s "$@")_$(arg -a "$@")"
    [ -f "$f" ] || { echo 'security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.' >&2; exit 44; }
    cat "$f"; echo ;;
  delete-generic-password)
    f="$store/$(arg -s "$@")_$(arg -a "$@")"
    [ -f "$f" ] || exit 44
    rm -f "$f" ;;
  *) exit 2 ;;
esac
`;

export interface StandInKeyring {
  binDir: string;
  secretTool: string;
  security: string;
  /** PATH with the stand-ins first, and the variable that points them at their store. */
  env: NodeJS.ProcessEnv;
  /** Every command line the stand-ins were run with. */
  argvLog(): string;
}

export function standInKeyring(dir: string): StandInKeyring {
  const binDir = path.join(dir, 'bin');
  const store = path.join(dir, 'keyring');
  const write = (name: string, text: string) => {
    const file = path.join(binDir, name);
    writeFileSync(file, text);
    chmodSync(file, 0o755);
    return file;
  };
  mkdirSync(binDir, { recursive: true });
  return {
    binDir,
    secretTool: write('secret-tool', SECRET_TOOL),
    security: write('security', SECURITY),
    env: { ...process.env, PATH: `${binDir}${path.delimiter}${process.env.PATH ?? ''}`, STANDIN_KEYRING: store },
    argvLog: () => (existsSync(`${store}.argv`) ? readFileSync(`${store}.argv`, 'utf8') : ''),
  };
}
