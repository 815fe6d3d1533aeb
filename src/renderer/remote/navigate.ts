/**
 * A remote folder opens in a window of its own: in the app, the main process has opened it; in a
 * browser, this tab goes there (a page cannot open a tab later than the click without a popup).
 */
export function goToWindow(url: string, transport: 'electron' | 'websocket'): void {
  if (transport === 'websocket') window.location.assign(url);
}
