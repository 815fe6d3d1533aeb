// A real `loupe serve` transport in this process: a Host on a temp folder, a built-looking UI
// folder, and the HTTP + WebSocket server on 127.0.0.1.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import WebSocket from 'ws';
import type { WsServerMessage } from '../../src/shared/contract';
import { Host } from '../../src/main/host/host';
import { startServer, type RunningServer, type ServeOptions } from '../../src/main/cli/serve/server';
import { tempDir, writeTree } from './tmp';

export interface ServeFixture {
  dir: string;
  project: string;
  host: Host;
  srv: RunningServer;
  close(): Promise<void>;
}

export async function serveFixture(
  files: Record<string, string> = { 'src/main.ts': 'export const x = 1;\n' },
  options: Partial<ServeOptions> = {},
  prepare?: (project: string) => Promise<void>,
): Promise<ServeFixture> {
  const { dir, cleanup } = await tempDir('loupe-serve-');
  const project = path.join(dir, 'project');
  const ui = path.join(dir, 'ui');
  await writeTree(project, files);
  await prepare?.(project);
  await mkdir(path.join(ui, 'assets'), { recursive: true });
  await writeFile(path.join(ui, 'index.html'), '<!doctype html><title>Loupe</title>');
  await writeFile(path.join(ui, 'assets', 'app.js'), 'console.log(1)');
  const host = new Host({ transport: 'websocket', configDir: path.join(dir, 'config') });
  await host.open(project);
  const srv = await startServer({ host, staticDir: ui, port: 0, ...options });
  return {
    dir,
    project,
    host,
    srv,
    async close() {
      await srv.close();
      await host.dispose();
      await cleanup();
    },
  };
}

/** A well-behaved client, as the browser's would be. */
export function healthyClient(srv: RunningServer): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${srv.port}/ws?token=${srv.token}`);
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

let nextId = 1;

export function request(ws: WebSocket, ch: string, p: unknown, timeoutMs = 10_000): Promise<WsServerMessage> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.off('message', onMsg);
      reject(new Error(`no answer to ${ch} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMsg = (raw: WebSocket.RawData) => {
      const msg = JSON.parse(raw.toString()) as WsServerMessage;
      if (msg.t === 'res' && msg.id === id) {
        clearTimeout(timer);
        ws.off('message', onMsg);
        resolve(msg);
      }
    };
    ws.on('message', onMsg);
    ws.send(JSON.stringify({ t: 'req', id, ch, p }));
  });
}
