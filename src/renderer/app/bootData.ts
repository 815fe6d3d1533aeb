import { BOOT_ELEMENT_ID, type BootData } from '../../shared/contract';

/**
 * The open folder and its root listing as `loupe serve` wrote them into the page (see
 * src/main/cli/serve/bootPage.ts); null in the desktop app, or when the host had no answer yet.
 * Read once: the element is removed, a reconnect asks the host.
 */
export function readBootData(doc: Document = document): BootData | null {
  const el = doc.getElementById(BOOT_ELEMENT_ID);
  if (!el) return null;
  el.remove();
  try {
    const data = JSON.parse(el.textContent ?? '') as Partial<BootData> | null;
    if (typeof data?.workspace?.root !== 'string' || !Array.isArray(data.listing?.entries)) return null;
    return data as BootData;
  } catch {
    return null;
  }
}
