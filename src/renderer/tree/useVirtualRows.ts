import { useLayoutEffect, useState, type RefObject } from 'react';

export interface VirtualWindow {
  start: number;
  end: number;
  viewportHeight: number;
}

// Rows rendered beyond each edge so a fast wheel flick does not show blank space.
const OVERSCAN = 10;

/** The slice [start, end) of a fixed-height list that the scroll container can show. */
export function visibleRange(scrollTop: number, viewportHeight: number, rowHeight: number, count: number): { start: number; end: number } {
  const first = Math.floor(scrollTop / rowHeight);
  const last = Math.ceil((scrollTop + viewportHeight) / rowHeight);
  return { start: Math.max(0, first - OVERSCAN), end: Math.min(count, last + OVERSCAN) };
}

/** Tracks the scroll container's size and offset; only the rows in view get rendered. */
export function useVirtualRows(ref: RefObject<HTMLElement | null>, rowHeight: number, count: number): VirtualWindow {
  const [scrollTop, setScrollTop] = useState(0);
  const [viewportHeight, setViewportHeight] = useState(0);

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const onScroll = () => setScrollTop(el.scrollTop);
    const observer = new ResizeObserver(() => setViewportHeight(el.clientHeight));
    setViewportHeight(el.clientHeight);
    el.addEventListener('scroll', onScroll, { passive: true });
    observer.observe(el);
    return () => {
      el.removeEventListener('scroll', onScroll);
      observer.disconnect();
    };
  }, [ref]);

  return { ...visibleRange(scrollTop, viewportHeight, rowHeight, count), viewportHeight };
}
