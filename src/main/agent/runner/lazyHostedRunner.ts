// A hosted agent's runner, loaded with its first use: the ACP SDK and its schemas (tens of ms of
// compiling) are not part of Loupe's own chat.
import type { HostedRunnerOptions } from './hostedRunner';
import type { SessionRunner } from './types';

export function lazyHostedRunner(opts: HostedRunnerOptions): SessionRunner {
  let made: Promise<SessionRunner> | null = null;
  const runner = () => (made ??= import('./hostedRunner').then((m) => new m.HostedRunner(opts)));
  return {
    agent: opts.agent,
    ready: async (o) => (await runner()).ready(o),
    run: async (request, state, emit) => (await runner()).run(request, state, emit),
    dispose: async (why) => {
      if (made) await (await made).dispose(why);
    },
  };
}
