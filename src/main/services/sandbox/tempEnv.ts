// The environment that points a sandboxed program's temp and cache folders into its private temp
// folder: inside the sandbox HOME is read-only, so the package managers' caches (npm, yarn, pip,
// go and the XDG cache) move there, and nothing written outlives the program.
import path from 'node:path';

export function sandboxTempEnv(tmpDir: string): NodeJS.ProcessEnv {
  const cache = path.join(tmpDir, '.cache');
  return {
    TMPDIR: tmpDir,
    TMP: tmpDir,
    TEMP: tmpDir,
    XDG_CACHE_HOME: cache,
    npm_config_cache: path.join(cache, 'npm'),
    YARN_CACHE_FOLDER: path.join(cache, 'yarn'),
    PIP_CACHE_DIR: path.join(cache, 'pip'),
    GOCACHE: path.join(cache, 'go-build'),
  };
}
