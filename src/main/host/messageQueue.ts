// Messages a person sends while the agent works on their session (docs/architecture.md,
// "Steering a conversation"): each waits, editable and removable, and goes as the next request
// when the running one ends — or, once marked "send now", to the model at the next tool boundary.
import type { ChatMode, QueuedMessageView } from '../../shared/contract';
import { InvalidArgumentError } from '../errors';

export class MessageQueue {
  private items: QueuedMessageView[] = [];
  private seq = 0;

  constructor(private readonly changed: (items: QueuedMessageView[]) => void) {}

  list(): QueuedMessageView[] {
    return this.items.map((m) => ({ ...m }));
  }

  add(text: string, mode: ChatMode): QueuedMessageView {
    const item = { id: `q-${++this.seq}`, text, mode, steer: false };
    this.items.push(item);
    this.tell();
    return { ...item };
  }

  edit(id: string, text: string): void {
    if (!text.trim()) throw new InvalidArgumentError('A queued message cannot be empty; remove it instead.');
    this.find(id).text = text;
    this.tell();
  }

  remove(id: string): void {
    this.find(id);
    this.items = this.items.filter((m) => m.id !== id);
    this.tell();
  }

  /** "Send now": the next tool boundary gives it to the model. */
  steer(id: string): void {
    this.find(id).steer = true;
    this.tell();
  }

  /** The messages marked "send now", in order, taken out of the queue. */
  takeSteering(): string[] {
    const taken = this.items.filter((m) => m.steer);
    if (!taken.length) return [];
    this.items = this.items.filter((m) => !m.steer);
    this.tell();
    return taken.map((m) => m.text);
  }

  /** The first waiting message, taken out (it becomes a request). */
  take(id?: string): QueuedMessageView | undefined {
    const item = id === undefined ? this.items[0] : this.find(id);
    if (!item) return undefined;
    this.items = this.items.filter((m) => m !== item);
    this.tell();
    return item;
  }

  /** A taken message that could not be sent goes back to the front. */
  putBack(item: QueuedMessageView): void {
    this.items.unshift({ ...item, steer: false });
    this.tell();
  }

  private find(id: string): QueuedMessageView {
    const item = this.items.find((m) => m.id === id);
    if (!item) throw new InvalidArgumentError(`No queued message ${id} (it may have been sent already).`);
    return item;
  }

  private tell(): void {
    this.changed(this.list());
  }
}
