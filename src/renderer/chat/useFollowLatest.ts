import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { ChatItem } from '../store';

/** Within this many pixels of the end the list counts as at the bottom (and keeps following). */
const NEAR_END = 40;

/**
 * Keeps the chat at its newest line while the person is there; scrolled up, it stays put and
 * offers a jump. Sending a message always goes to the end: what follows it (the reply, retries,
 * the final error) is what the person waits for.
 */
export function useFollowLatest(items: ChatItem[]) {
  const listRef = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const lastUser = useRef<string | null>(null);
  /** Watches the list and each item for a change of size (below). */
  const sizes = useRef<ResizeObserver | null>(null);
  const [atBottom, setAtBottom] = useState(true);

  useLayoutEffect(() => {
    const el = listRef.current;
    if (!el) return;
    const mine = [...items].reverse().find((i) => i.kind === 'user')?.id ?? null;
    if (mine !== lastUser.current) {
      // The first render (a reopened session) and a new message of the person's both go to the end.
      lastUser.current = mine;
      follow.current = true;
    }
    if (follow.current) el.scrollTop = el.scrollHeight;
    const near = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_END;
    setAtBottom((was) => (was === near ? was : near));
    for (const child of el.children) sizes.current?.observe(child);
  }, [items]);

  // What changes size without a new item — the approval queue below taking room and giving it
  // back, an answer's markdown or a card's output laid out later — keeps the end in view too,
  // unless the person scrolled away from it.
  useEffect(() => {
    const el = listRef.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      if (follow.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    for (const child of el.children) observer.observe(child);
    sizes.current = observer;
    return () => {
      observer.disconnect();
      sizes.current = null;
    };
  }, []);

  useEffect(() => {
    const el = listRef.current;
    if (!el) return;
    // Only the person scrolling up stops the following: a scroll event that lands after the
    // content grew (our own scroll to the end, seen a frame late) is not a choice to stay.
    let lastTop = el.scrollTop;
    const onScroll = () => {
      const near = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_END;
      if (near) follow.current = true;
      else if (el.scrollTop < lastTop) follow.current = false;
      lastTop = el.scrollTop;
      setAtBottom(near);
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => el.removeEventListener('scroll', onScroll);
  }, []);

  const toLatest = useCallback(() => {
    const el = listRef.current;
    if (!el) return;
    follow.current = true;
    el.scrollTop = el.scrollHeight;
    setAtBottom(true);
  }, []);

  return { listRef, atBottom, toLatest };
}
