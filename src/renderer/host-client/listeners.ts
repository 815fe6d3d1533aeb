import type { EventChannel, HostEvents } from '../../shared/contract';

type AnyListener = (payload: unknown) => void;

/** Event fan-out shared by the transports: one failing listener must not starve the others. */
export class EventListeners {
  private readonly byEvent = new Map<EventChannel, Set<AnyListener>>();

  add<E extends EventChannel>(event: E, listener: (payload: HostEvents[E]) => void): () => void {
    let set = this.byEvent.get(event);
    if (!set) {
      set = new Set();
      this.byEvent.set(event, set);
    }
    const l = listener as AnyListener;
    set.add(l);
    return () => {
      set.delete(l);
    };
  }

  emit(event: EventChannel, payload: unknown): void {
    const set = this.byEvent.get(event);
    if (!set) return;
    for (const l of [...set]) {
      try {
        l(payload);
      } catch (err) {
        console.error(`[loupe] listener for ${event} threw`, err);
      }
    }
  }
}
