// The sandboxed preload: exposes `window.loupe` (a PreloadBridge) and nothing else. It never
// hands ipcRenderer, its events or arbitrary channel names to the page. A sandboxed preload
// may only require 'electron'; the contract's channel lists are bundled in at build time.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { EVENT_CHANNELS, REQUEST_CHANNELS, ipcChannel, type EventChannel, type IpcResult, type PreloadBridge } from '../shared/contract';

function createBridge(ipc: Pick<typeof ipcRenderer, 'invoke' | 'on' | 'removeListener'>): PreloadBridge {
  const requests = {} as Record<string, (params: unknown) => Promise<IpcResult>>;
  for (const channel of REQUEST_CHANNELS) {
    const name = ipcChannel(channel);
    requests[channel] = (params: unknown) => ipc.invoke(name, params) as Promise<IpcResult>;
  }

  const events = new Set<string>(EVENT_CHANNELS);
  return {
    requests: Object.freeze(requests) as unknown as PreloadBridge['requests'],
    on(event: EventChannel, listener: (payload: unknown) => void): () => void {
      if (typeof event !== 'string' || !events.has(event)) throw new Error(`loupe: unknown event "${String(event)}"`);
      if (typeof listener !== 'function') throw new TypeError('loupe: the listener must be a function');
      const name = ipcChannel(event);
      // The page gets the payload only, never the IpcRendererEvent (it carries `sender`).
      const forward = (_event: IpcRendererEvent, payload: unknown) => listener(payload);
      ipc.on(name, forward);
      let subscribed = true;
      return () => {
        if (!subscribed) return;
        subscribed = false;
        ipc.removeListener(name, forward);
      };
    },
  };
}

contextBridge.exposeInMainWorld('loupe', createBridge(ipcRenderer));
