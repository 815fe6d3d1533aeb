// The host names the modifications that block a rollback in its ROLLBACK_CONFLICT message;
// the review pane turns those ids into links.
const MOD_ID = /mod-\d{8}-\d{6}-\d+/g;

/** Distinct modification ids in `message`, in order, without the one being reversed. */
export function conflictIds(message: string, self?: string): string[] {
  const seen = new Set<string>();
  for (const id of message.match(MOD_ID) ?? []) if (id !== self) seen.add(id);
  return [...seen];
}
