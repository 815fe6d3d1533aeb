import type { PreloadBridge } from '../../shared/contract';
import { createIpcClient } from './ipcClient';
import { takeToken, webSocketUrl } from './token';
import type { HostConnection } from './types';
import { createWsClient } from './wsClient';

export { HostRequestError, errorMessage } from './HostRequestError';
export type { ConnectionState, ConnectionStatus, HostConnection } from './types';

declare global {
  interface Window {
    /** Present only inside the Electron window, exposed by the preload via contextBridge. */
    loupe?: PreloadBridge;
  }
}

/** Picks the transport at runtime: the preload bridge when Electron gave us one, else the WebSocket. */
export function createHostClient(): HostConnection {
  if (window.loupe) return createIpcClient(window.loupe);
  const token = takeToken(window.location, window.history, window.sessionStorage);
  return createWsClient({ url: webSocketUrl(window.location, token) });
}
