// Which conversation a folder had open, so a reload comes back to it. Per browser profile,
// like the layout; storage that is unavailable (privacy modes) only forgets it.
const key = (root: string) => `loupe.chat.session:${root}`;

export function rememberedSession(root: string | undefined): string | null {
  if (!root) return null;
  try {
    return localStorage.getItem(key(root));
  } catch {
    return null;
  }
}

export function rememberSession(root: string | undefined, id: string | null): void {
  if (!root) return;
  try {
    if (id) localStorage.setItem(key(root), id);
    else localStorage.removeItem(key(root));
  } catch {
    // Forgotten on reload; nothing else depends on it.
  }
}
