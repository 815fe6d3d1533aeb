import { useEffect, useState } from 'react';

/**
 * Whether an element is narrower than `below` px, following its resizes. Returns the ref to put
 * on the element (a callback ref: the element may mount after the component does).
 */
export function useNarrow<T extends HTMLElement>(below: number): [(el: T | null) => void, boolean] {
  const [el, setEl] = useState<T | null>(null);
  const [narrow, setNarrow] = useState(false);
  useEffect(() => {
    if (!el) return;
    const measure = () => setNarrow(el.clientWidth > 0 && el.clientWidth < below);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [el, below]);
  return [setEl, narrow];
}
