import { useEffect } from 'react';
import { useApp } from '../store';

/** The window's title says the folder and, for a remote one, where it is. */
export function useWindowTitle(): void {
  const name = useApp((s) => s.workspace?.name);
  const label = useApp((s) => (s.remote ? `${s.remote.kind === 'ssh' ? 'SSH' : 'Container'}: ${s.remote.label}` : null));
  useEffect(() => {
    document.title = [name, label, 'Loupe'].filter(Boolean).join(' — ');
  }, [name, label]);
}
