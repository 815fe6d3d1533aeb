// `loupe run --remote ssh://…/path "prompt"`: the agent headless on a remote folder. The request
// runs in the host there, through the same session layer as a window, so a link that drops is
// made again and the events missed meanwhile are printed when it is back; nothing runs twice.
// Questions are answered as `loupe run` answers them (--yes, --deny, or the terminal), and the
// background processes the run started there are stopped at the end unless --keep-processes.
import { createInterface } from 'node:readline/promises';
import type { ApprovalRequestView, ChatEvent } from '../../shared/contract';
import { InvalidArgumentError, toWireError } from '../errors';
import type { CliPaths } from '../cli/paths';
import { humanPrinter, RUN_EXIT } from '../cli/run';
import { cliRemoteWindows } from './windows';

type Mode = 'yes' | 'deny' | 'ask';
type RunStatusName = Extract<ChatEvent, { type: 'request_finished' }>['status'];

async function askOnTerminal(req: ApprovalRequestView): Promise<{ answer: 'once' | 'always' | 'deny'; message?: string }> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const why = req.rule ? `rule ${req.rule}` : 'no rule matches';
    process.stderr.write(`\n? ${req.tool} wants to ${req.kind === 'edit' ? '' : 'run: '}${req.summary}\n  ${req.reason} (${why})\n`);
    if (req.diff) process.stderr.write(`${req.diff.replace(/^/gm, '  | ')}\n`);
    if (req.details) process.stderr.write(`${req.details.replace(/^/gm, '  | ')}\n`);
    for (;;) {
      const a = (await rl.question('  Allow [o]nce or [d]eny? ')).trim();
      if (/^(o(nce)?|y(es)?)$/i.test(a)) return { answer: 'once' };
      if (/^(d(eny)?|n(o)?)$/i.test(a)) {
        const message = (await rl.question('  Message for the agent (optional): ')).trim();
        return { answer: 'deny', ...(message ? { message } : {}) };
      }
    }
  } finally {
    rl.close();
  }
}

export interface RemoteRunFlags {
  remote: string;
  yes: boolean;
  deny: boolean;
  json: boolean;
  session?: string;
  mode: 'act' | 'plan';
  keepProcesses: boolean;
  trust: boolean;
}

export async function runRemoteRun(flags: RemoteRunFlags, prompt: string, paths: CliPaths): Promise<number> {
  if (flags.yes && flags.deny) throw new InvalidArgumentError('--yes and --deny exclude each other.');
  const mode: Mode = flags.yes ? 'yes' : flags.deny ? 'deny' : process.stdin.isTTY ? 'ask' : 'deny';
  const note = (s: string) => !flags.json && process.stderr.write(`${s}\n`);
  const windows = cliRemoteWindows(paths);
  try {
    const session = await windows.session(flags.remote, (m) => process.stderr.write(`loupe: ${m}\n`));
    const link = session.link;
    link.onState((state, message) => state !== 'connected' && process.stderr.write(`loupe: the link to ${session.status.label} is ${state}${message ? ` (${message})` : ''}; the run goes on there.\n`));
    if (flags.trust) {
      const view = await link.request('trust.get', undefined);
      if (view.needed && !view.trusted && view.digest) await link.request('trust.accept', { digest: view.digest });
    }
    const sessionId = flags.session ?? (await link.request('chat.newSession', undefined)).id;
    const print = flags.json ? (e: ChatEvent) => process.stdout.write(`${JSON.stringify(e)}\n`) : humanPrinter();
    let correlation: string | null = null;
    const early: ChatEvent[] = [];
    let finish!: (status: RunStatusName) => void;
    const finished = new Promise<RunStatusName>((r) => (finish = r));
    const onEvent = (e: ChatEvent) => {
      print(e);
      if (e.type === 'request_finished' && e.correlation_id === correlation) finish(e.status);
    };
    link.on('chat.event', ({ session_id, event }) => {
      if (session_id !== sessionId) return;
      if (correlation === null) early.push(event);
      else if (event.correlation_id === correlation) onEvent(event);
    });
    // After a drop the host could not replay: whether the request still runs, from its session.
    link.onReset(() => {
      void link.request('chat.session', { id: sessionId }).then(
        (view) => {
          if (!view.running_correlation_id && correlation) finish('done');
        },
        () => undefined,
      );
    });
    const answered = new Set<string>();
    link.on('approvals.changed', ({ requests }) => {
      for (const req of requests) {
        if (req.session_id !== sessionId || answered.has(req.id)) continue;
        answered.add(req.id);
        const answer =
          mode === 'yes'
            ? Promise.resolve({ answer: 'once' as const })
            : mode === 'deny'
              ? Promise.resolve({ answer: 'deny' as const, message: 'loupe run --deny: nobody is here to allow it. Add a rule to allow it, or run with --yes.' })
              : askOnTerminal(req);
        void answer.then((a) => {
          if (mode === 'yes') note(`(allowed by --yes: ${req.summary})`);
          return link.request('approvals.answer', { id: req.id, ...a });
        });
      }
    });
    let stopping = false;
    const onSigint = () => {
      if (stopping) process.exit(130);
      stopping = true;
      void link.request('chat.stop', { session_id: sessionId }).catch(() => undefined);
    };
    process.on('SIGINT', onSigint);
    let status: RunStatusName;
    try {
      const started = await link.request('chat.send', { session_id: sessionId, text: prompt, mode: flags.mode });
      correlation = started.correlation_id;
      for (const e of early.splice(0)) if (e.correlation_id === correlation) onEvent(e);
      status = await finished;
    } catch (err) {
      const e = toWireError(err);
      process.stderr.write(`loupe run: ${e.code}: ${e.message}\n`);
      status = 'error';
    } finally {
      process.off('SIGINT', onSigint);
    }
    note(`(session ${sessionId} on ${session.status.target} — continue it with --remote ${session.status.target} --session ${sessionId})`);
    const mine = (await link.request('processes.list', undefined)).filter((p) => p.session_id === sessionId && (p.status === 'starting' || p.status === 'running' || p.status === 'ready'));
    if (mine.length) {
      if (flags.keepProcesses) process.stderr.write(`Background processes keep running there: ${mine.map((p) => `${p.process_id} ${p.command}`).join(', ')}\n`);
      else {
        process.stderr.write(`Stopping ${mine.map((p) => p.process_id).join(', ')} (--keep-processes keeps them running there).\n`);
        for (const p of mine) await link.request('processes.kill', { id: p.process_id }).catch(() => undefined);
      }
    }
    return RUN_EXIT[status];
  } finally {
    await windows.close();
  }
}
