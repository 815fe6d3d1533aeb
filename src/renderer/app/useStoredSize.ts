import { useCallback, useState } from 'react';

const clamp = (n: number, min: number, max: number) => Math.max(min, Math.min(max, n));

/** A pane size that survives reloads; layout is a per-user preference, not app state. */
export function useStoredSize(key: string, initial: number, min: number, max: number): [number, (n: number) => void] {
  const [size, setSize] = useState(() => {
    try {
      const saved = Number(localStorage.getItem(`loupe.layout.${key}`));
      return saved > 0 ? clamp(saved, min, max) : initial;
    } catch {
      return initial;
    }
  });
  const update = useCallback(
    (n: number) => {
      const next = clamp(Math.round(n), min, max);
      setSize(next);
      try {
        localStorage.setItem(`loupe.layout.${key}`, String(next));
      } catch {
        // Storage can be unavailable (privacy modes); the size then lasts one session.
      }
    },
    [key, min, max],
  );
  return [size, update];
}
