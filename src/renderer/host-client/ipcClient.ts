import type { EventChannel, HostEvents, Params, PreloadBridge, RequestChannel, Result } from '../../shared/contract';
import { HostRequestError } from './HostRequestError';
import type { ConnectionStatus, HostConnection } from './types';

const OPEN: ConnectionStatus = { state: 'open', attempt: 0 };

/** The Electron transport: the preload's bridge, with IpcResult unwrapped into values or throws. */
export function createIpcClient(bridge: PreloadBridge): HostConnection {
  return {
    transport: 'electron',
    async request<C extends RequestChannel>(channel: C, params: Params<C>): Promise<Result<C>> {
      const res = await bridge.requests[channel](params);
      if (!res.ok) throw new HostRequestError(res.e.code, res.e.message, channel, res.e.details);
      return res.r as Result<C>;
    },
    on<E extends EventChannel>(event: E, listener: (payload: HostEvents[E]) => void): () => void {
      return bridge.on(event, listener as (payload: unknown) => void);
    },
    status: () => OPEN,
    // IPC cannot drop while the window lives, so there is nothing to report.
    onStatus: () => () => {},
    onReset: () => () => {},
  };
}
