// The Electron transport: one ipcMain handler per request channel, host events pushed to the
// window. Electron objects are passed in (type-only imports) so this is testable with fakes.
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import {
  REQUEST_CHANNELS,
  ipcChannel,
  type EventChannel,
  type HostEvents,
  type IpcResult,
  type Params,
  type RequestChannel,
  type Result,
} from '../../shared/contract';
import { toWireError } from '../errors';
import { isTrustedSender } from './windowOptions';

/** The part of Host this transport needs. */
export interface IpcHost {
  handle<C extends RequestChannel>(channel: C, params: Params<C>): Promise<Result<C>>;
  onEvent(listener: <E extends EventChannel>(event: E, payload: HostEvents[E]) => void): () => void;
}

export interface BindIpcOptions {
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  host: IpcHost;
  /** The URL our window loads; only its main frame is answered. */
  appUrl: string;
  /** The app window's webContents, if it exists. */
  getWebContents: () => WebContents | null | undefined;
  log?: (message: string) => void;
}

/** The sender frame's URL and whether it is a main frame; null once the frame is gone. */
function senderFrameOf(event: IpcMainInvokeEvent): { url: string; isMainFrame: boolean } | null {
  try {
    const frame = event.senderFrame;
    return frame ? { url: frame.url, isMainFrame: frame.parent === null } : null;
  } catch {
    return null; // the frame was destroyed or navigated away
  }
}

/** Whether an invoke comes from our window's main frame showing our page. */
export function isTrustedEvent(event: IpcMainInvokeEvent, appUrl: string, ours: WebContents | null | undefined): boolean {
  if (!ours || ours.isDestroyed() || event.sender?.id !== ours.id) return false;
  const frame = senderFrameOf(event);
  return frame !== null && isTrustedSender(frame.url, frame.isMainFrame, appUrl);
}

/** Binds every request channel and forwards host events. Returns the unbinder. */
export function bindIpc({ ipcMain, host, appUrl, getWebContents, log = (m) => console.warn(m) }: BindIpcOptions): () => void {
  for (const channel of REQUEST_CHANNELS) {
    ipcMain.handle(ipcChannel(channel), async (event: IpcMainInvokeEvent, params: unknown): Promise<IpcResult> => {
      if (!isTrustedEvent(event, appUrl, getWebContents())) {
        log(`loupe: refused IPC "${channel}" from an untrusted frame (${senderFrameOf(event)?.url ?? 'frame gone'})`);
        return { ok: false, e: { code: 'PERMISSION_DENIED', message: 'This frame may not talk to the Loupe host.' } };
      }
      try {
        const r = await host.handle(channel, params as Params<typeof channel>);
        return { ok: true, r };
      } catch (err) {
        return { ok: false, e: toWireError(err) };
      }
    });
  }

  const unsubscribe = host.onEvent((event, payload) => {
    const wc = getWebContents();
    if (!wc || wc.isDestroyed()) return;
    wc.send(ipcChannel(event), payload);
  });

  return () => {
    unsubscribe();
    for (const channel of REQUEST_CHANNELS) ipcMain.removeHandler(ipcChannel(channel));
  };
}
