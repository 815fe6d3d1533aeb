// The sandbox's network reaches only the hosts a rule names (docs/security.md, "The sandbox's
// network"). Real bwrap, real curl and node, the real gate and approval queue; two servers on
// 127.0.0.1 stand in for "the internet" and for a service of this machine, and the proxy's name
// resolution is the test's: allowed.test and other.test both mean 127.0.0.1, and only a rule
// naming a host lets it through. No traffic leaves the machine.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bashTool } from '../../src/main/agent/tools/bash';
import type { ToolContext } from '../../src/main/agent/tools/types';
import { ApprovalQueue, type ApprovalRequest } from '../../src/main/services/permissions/approvalQueue';
import { PermissionGate } from '../../src/main/services/permissions/permissionGate';
import { ProjectConfig } from '../../src/main/services/permissions/projectConfig';
import { PermissionEngine } from '../../src/main/services/permissions/ruleEngine';
import type { PermissionRule } from '../../src/main/services/permissions/types';
import type { NetworkLogEntry } from '../../src/shared/contract';
import { SandboxProbe, probeSandbox } from '../../src/main/services/sandbox/probe';
import { UserSettings } from '../../src/main/services/settings/userSettings';
import { harness, type Harness } from '../support/toolHarness';
import { writeUserSettings } from '../support/userSettings';

const availability = await probeSandbox();
const d = availability.available && availability.kind === 'bwrap' ? describe : describe.skip;

interface Recorder {
  server: http.Server;
  port: number;
  hits: string[];
}

async function recorder(body: string): Promise<Recorder> {
  const hits: string[] = [];
  const server = http.createServer((q, s) => {
    hits.push(`${q.headers.host} ${q.url}`);
    s.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

let internet: Recorder;
let database: Recorder;
let h: Harness;
const lookups: string[] = [];

beforeAll(async () => {
  internet = await recorder('from the internet');
  database = await recorder('the database');
  h = await harness();
});
afterAll(async () => {
  await h?.cleanup();
  for (const r of [internet, database]) await new Promise((ok) => r?.server.close(ok));
});

/** A tool context whose gate has `rules` (the user's) and whose person answers every card `answer`. */
function context(rules: PermissionRule[], answer: 'once' | 'deny', asked: ApprovalRequest[], decided: NetworkLogEntry[] = []): ToolContext {
  const userDir = path.join(h.sandbox, 'user');
  writeUserSettings(userDir, { permissions: rules });
  const user = new UserSettings(userDir);
  const queue = new ApprovalQueue('wait');
  queue.setResponder(async (req) => {
    asked.push(req);
    return answer === 'once' ? { answer: 'once' } : { answer: 'deny', message: 'not that host' };
  });
  const probe = new SandboxProbe();
  const engine = new PermissionEngine({ root: h.root, project: new ProjectConfig(h.root, user), userRules: user.permissions, sandbox: () => probe.status() });
  return {
    ...h.ctx,
    permissions: new PermissionGate(engine, queue, { persist: async () => undefined, onHostDecision: (e) => decided.push(e) }),
    lookup: async (host) => {
      lookups.push(host);
      return host.endsWith('.test') ? [{ address: '127.0.0.1', family: 4 }] : [];
    },
  };
}

const CURL_RULE: PermissionRule = { kind: 'network', pattern: 'curl *', action: 'allow', hosts: ['allowed.test'] };
const bash = (ctx: ToolContext, command: string) => bashTool.run({ command, description: 'net' }, ctx);

d('sandboxed network by host', () => {
  it('a host the rule names goes through the proxy; the result says it was reached', async () => {
    const asked: ApprovalRequest[] = [];
    const r = await bash(context([CURL_RULE], 'deny', asked), `curl -fsS http://allowed.test:${internet.port}/named`);
    expect(r.ok, r.output).toBe(true);
    expect(r.output).toContain('from the internet');
    expect(r.data).toMatchObject({ sandboxed: true, network: { reached: [`allowed.test:${internet.port}`], refused: [] } });
    expect(internet.hits).toContain(`allowed.test:${internet.port} /named`);
    expect(asked).toEqual([]);
  });

  it('another host is held as a network card; denied, the connection is refused with a message and nothing is sent', async () => {
    const asked: ApprovalRequest[] = [];
    const decided: NetworkLogEntry[] = [];
    const before = lookups.length;
    const ctx = context([CURL_RULE], 'deny', asked, decided);
    for (const url of [`http://other.test:${internet.port}/plain`, `https://other.test:${internet.port}/tunnel`]) {
      const r = await bash(ctx, `curl -fsS ${url}`);
      expect(r.ok).toBe(false);
      expect(r.error?.code).toBe('SANDBOX_BLOCKED');
      expect(r.error?.message).toContain('network access to other.test');
      expect(r.output).toContain('Network: refused other.test: the person denied it: "not that host"');
    }
    expect(asked.map((a) => [a.kind, a.tool])).toEqual([
      ['network', 'bash'],
      ['network', 'bash'],
    ]);
    expect(asked[0]!.summary).toBe(`other.test:${internet.port} from curl -fsS http://other.test:${internet.port}/plain`);
    expect(asked[0]!.always).toEqual([{ kind: 'network', pattern: 'curl *', action: 'allow', hosts: ['other.test'] }]);
    // Asked before any lookup: a denied name never leaves the machine.
    expect(lookups.slice(before)).toEqual([]);
    expect(internet.hits.filter((x) => x.startsWith('other.test'))).toEqual([]);
    // What the settings list: the host, the command, refused.
    expect(decided.map((e) => [e.host, e.allowed, e.command])).toEqual([
      [`other.test:${internet.port}`, false, `curl -fsS http://other.test:${internet.port}/plain`],
      [`other.test:${internet.port}`, false, `curl -fsS https://other.test:${internet.port}/tunnel`],
    ]);
  });

  it('approved once, another host goes through (asked again for its address on this machine)', async () => {
    const asked: ApprovalRequest[] = [];
    const r = await bash(context([CURL_RULE], 'once', asked), `curl -fsS http://other.test:${internet.port}/approved`);
    expect(r.ok, r.output).toBe(true);
    expect(asked.map((a) => a.summary)).toEqual([
      `other.test:${internet.port} from curl -fsS http://other.test:${internet.port}/approved`,
      `other.test:${internet.port} (127.0.0.1 (loopback)) from curl -fsS http://other.test:${internet.port}/approved`,
    ]);
    expect(internet.hits).toContain(`other.test:${internet.port} /approved`);
  });

  it('a connection that ignores the proxy variables has no route out', async () => {
    const asked: ApprovalRequest[] = [];
    const ctx = context([{ ...CURL_RULE, pattern: 'curl *' }, { kind: 'network', pattern: 'node *', action: 'allow', hosts: ['allowed.test'] }], 'once', asked);
    const direct = [
      `curl -fsS --noproxy '*' --max-time 5 http://allowed.test:${internet.port}/direct`,
      `curl -fsS --noproxy '*' --max-time 5 http://127.0.0.1:${database.port}/direct`,
      `node -e "require('http').get('http://127.0.0.1:${database.port}/direct',()=>process.exit(0)).on('error',e=>{console.error(e.message);process.exit(1)})"`,
    ];
    for (const cmd of direct) {
      const r = await bash(ctx, cmd);
      expect(r.data?.exit_code, `${cmd}: ${r.output}`).not.toBe(0);
    }
    expect(internet.hits.filter((x) => x.endsWith('/direct'))).toEqual([]);
    expect(database.hits).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('services of this machine and private addresses stay out of reach through the proxy, even under a wildcard rule', async () => {
    const asked: ApprovalRequest[] = [];
    const ctx = context([{ kind: 'network', pattern: 'curl *', action: 'allow', hosts: ['*'] }], 'deny', asked);
    const targets = [`http://127.0.0.1:${database.port}/db`, `http://localhost:${database.port}/db`, `http://[::1]:${database.port}/db`, 'http://10.0.0.1/x', 'http://192.168.1.1/x', 'http://169.254.169.254/latest/meta-data', `http://wild.test:${database.port}/db`];
    for (const url of targets) {
      // --noproxy '': through the proxy even for 127.0.0.1, which NO_PROXY keeps inside otherwise.
      const r = await bash(ctx, `curl -fsS --noproxy '' -x "$HTTP_PROXY" --max-time 5 ${url}`);
      expect(r.data?.exit_code, `${url}: ${r.output}`).not.toBe(0);
      expect(r.data?.network).toMatchObject({ reached: [] });
    }
    // Each was a question (the person said no), never a silent pass.
    expect(asked).toHaveLength(targets.length);
    expect(database.hits).toEqual([]);
  });

  it('without a network rule there is no proxy at all', async () => {
    const asked: ApprovalRequest[] = [];
    const r = await bash(context([], 'once', asked), `curl -fsS --max-time 5 http://allowed.test:${internet.port}/none`);
    expect(r.ok).toBe(false);
    expect(r.data).toMatchObject({ network: null });
    expect(asked).toEqual([]);
    expect(internet.hits.filter((x) => x.endsWith('/none'))).toEqual([]);
  });
});
