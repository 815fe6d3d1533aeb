// A cloned repository whose .mcp.json starts a server that leaves a marker file the moment it
// runs: untrusted, it never starts; trusted, a card (kind mcp-server, the exact command line)
// comes first; declined, it never starts; approved, it starts; its configuration changed, the
// person is asked again. The marker says each time whether the program ran.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspaceServices } from '../../src/main/workspace/compose';
import { FIXTURES } from '../support/mcpServers';
import { testServices } from '../support/services';
import { tempWorkspace, type TempWorkspace, until } from '../support/tmp';
import { testTrust, type TestTrust } from '../support/trust';

let t: TempWorkspace;
let root: string;
let trust: TestTrust;
let services: WorkspaceServices | null = null;
beforeEach(async () => {
  t = await tempWorkspace('loupe-mcp-trust-', 'clone');
  root = t.root;
  trust = testTrust();
});
afterEach(async () => {
  await services?.dispose();
  services = null;
  trust.cleanup();
  await t.cleanup();
});

const marker = () => path.join(root, 'STARTED.marker');
const serverFile = (extraArgs: string[] = []) => writeFile(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { helper: { command: process.execPath, args: [path.join(FIXTURES, 'marker.cjs'), ...extraArgs] } } }, null, 2));
const view = () => services!.mcp.list().find((v) => v.name === 'helper')!;

describe("a repository's .mcp.json", () => {
  it('untrusted: listed, never started, nobody asked', async () => {
    await serverFile();
    services = testServices(root, { user: trust.store, asker: { kind: 'person' } });
    await services.mcp.sync();
    // The settings' vocabulary has no "stopped": it waits for the person, who cannot restart it before trusting.
    expect(view()).toMatchObject({ status: 'pending', source: 'project', disabled: false, restartable: false, detail: expect.stringContaining('trust this folder with .mcp.json') });
    expect(services.queue.list()).toEqual([]);
    expect(services.mcp.tools()).toEqual([]);
    expect(existsSync(marker())).toBe(false);
  });

  it('trusted: a card with the exact command line first; declined, never started; Restart asks again; approved, it runs', async () => {
    await serverFile();
    await trust.trust(root);
    services = testServices(root, { user: trust.store, asker: { kind: 'person' } });
    const sync = services.mcp.sync();
    const card = await until(() => services!.queue.list()[0], 10_000);
    expect(card).toMatchObject({ kind: 'mcp-server', tool: 'helper' });
    expect(card.summary).toContain(`${process.execPath} ${path.join(FIXTURES, 'marker.cjs')}`);
    expect(card.details).toContain('no network');
    expect(view()).toMatchObject({ status: 'pending', restartable: false });
    expect(existsSync(marker())).toBe(false);
    services.queue.answer(card.id, { answer: 'deny' });
    await sync;
    // Declined: waiting for the person, and Restart asks again.
    expect(view()).toMatchObject({ status: 'pending', detail: 'you declined to start it', restartable: true, disabled: false });
    expect(existsSync(marker())).toBe(false);
    // Declined holds: syncing again (a config event) does not ask again.
    await services.mcp.sync();
    expect(services.queue.list()).toEqual([]);
    expect(existsSync(marker())).toBe(false);

    const restart = services.mcp.restart('helper');
    const again = await until(() => services!.queue.list()[0], 10_000);
    services.queue.answer(again.id, { answer: 'always' });
    await restart;
    expect(view()).toMatchObject({ status: 'ready', tools: ['hello'] });
    expect(existsSync(marker())).toBe(true);
  }, 60_000);

  it('approved always: starts without asking next time; a changed configuration asks again', async () => {
    await serverFile();
    await trust.trust(root);
    services = testServices(root, { user: trust.store, asker: { kind: 'person' } });
    const first = services.mcp.sync();
    services.queue.answer((await until(() => services!.queue.list()[0], 10_000)).id, { answer: 'always' });
    await first;
    expect(view()).toMatchObject({ status: 'ready', restartable: true });
    // Disabled by the person: a status of the vocabulary, `disabled` saying why; its tools are not offered.
    await services.mcp.setDisabled('helper', true);
    expect(view()).toMatchObject({ status: 'pending', disabled: true, restartable: false, detail: 'disabled in this folder' });
    expect(services.mcp.tools()).toEqual([]);
    await services.mcp.setDisabled('helper', false);
    expect(view()).toMatchObject({ status: 'ready', disabled: false });
    await services.dispose();

    services = testServices(root, { user: trust.store, asker: { kind: 'deny' } });
    await services.mcp.sync();
    expect(view().status).toBe('ready');
    await services.dispose();

    // A changed server is another program: trusted again, it still waits for its own approval.
    await serverFile(['--verbose']);
    await trust.trust(root);
    services = testServices(root, { user: trust.store, asker: { kind: 'person' } });
    const changed = services.mcp.sync();
    const card = await until(() => services!.queue.list()[0], 10_000);
    expect(card.summary).toContain('--verbose');
    services.queue.answer(card.id, { answer: 'deny' });
    await changed;
    expect(view().status).toBe('pending');
  }, 60_000);

  it('allowed once: Restart starts the same configuration again without a card; a request meanwhile waits for it', async () => {
    await serverFile();
    await trust.trust(root);
    services = testServices(root, { user: trust.store, asker: { kind: 'person' } });
    const first = services.mcp.sync();
    const card = await until(() => services!.queue.list()[0], 10_000);
    services.queue.answer(card.id, { answer: 'once' });
    await first;
    expect(view()).toMatchObject({ status: 'ready', tools: ['hello'] });

    const restart = services.mcp.restart('helper');
    // A request asking now waits for the server on its way and then finds its tools.
    const waited: string[] = [];
    const missing = await services.mcp.allSettled(new AbortController().signal, (server) => waited.push(server));
    expect(missing).toEqual([]);
    expect(services.mcp.tools().map((t) => t.tool.name)).toEqual(['hello']);
    await restart;
    expect(services.queue.list()).toEqual([]);
    expect(view()).toMatchObject({ status: 'ready', tools: ['hello'] });
  }, 60_000);

  it('a request waits for the start card, then names a server that stays down; Stop ends the wait', async () => {
    await serverFile();
    await trust.trust(root);
    services = testServices(root, { user: trust.store, asker: { kind: 'person' } });
    void services.mcp.sync({ wait: false });
    const waited: [string, string][] = [];
    const settled = services.mcp.allSettled(new AbortController().signal, (server, why) => waited.push([server, why]));
    const card = await until(() => services!.queue.list()[0], 10_000);
    expect(waited).toEqual([['helper', 'waiting for your approval to start it']]);
    // Still waiting for the person: a Stop ends the wait with ABORTED, and nothing started.
    const stop = new AbortController();
    const stopped = services.mcp.allSettled(stop.signal, () => undefined);
    stop.abort();
    await expect(stopped).rejects.toMatchObject({ code: 'ABORTED' });
    services.queue.answer(card.id, { answer: 'deny' });
    expect(await settled).toEqual([{ server: 'helper', why: 'you declined to start it' }]);
    expect(existsSync(marker())).toBe(false);
  }, 60_000);
});
