// Real MCP servers for tests (dev dependencies, not stand-ins) and the small misbehaving ones the
// failure tests need, as `mcpServers` entries a person would write.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeUserSettings } from './userSettings';

// From the URL, not __dirname: Playwright loads this as an ES module.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
/** Misbehaving servers (test/fixtures/mcp/): one that crashes mid-call, one that never answers, one that prints garbage. */
export const FIXTURES = path.join(ROOT, 'test/fixtures/mcp');

/** server-everything over stdio, run by this Node. */
export const everythingStdio = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [EVERYTHING, 'stdio'], ...extra });

/** server-filesystem scoped to `dir`. */
export const filesystemStdio = (dir: string, extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [FILESYSTEM, dir], ...extra });

export const fixture = (name: string, extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [path.join(FIXTURES, name)], ...extra });

/** The person's settings with these servers (and whatever else is given). */
export function writeServers(configDir: string, servers: Record<string, unknown>, rest: Record<string, unknown> = {}): void {
  writeUserSettings(configDir, { ...rest, mcpServers: servers });
}
