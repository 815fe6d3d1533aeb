// Puts streamed tool calls back together. OpenAI sends each call's pieces under one `index`,
// the id and name once; real servers differ: no index at all (Gemini's endpoint, old Ollama),
// every call at index 0 with distinct ids (Ollama, LiteLLM), the name repeated on every piece,
// arguments as a JSON object instead of a string, two parallel calls under one id (DeepSeek,
// GLM, an OpenRouter upstream; the id repeated on every piece or not). A call is found by id
// first, then by index, then it is the latest one; names are never concatenated. A call whose
// id an earlier call of the turn has gets a distinct one before it enters the conversation, so
// each is answered under its own id.
import type { ChatToolCall, StreamHandlers } from './types';

export interface ToolCallDelta {
  index?: number | null;
  id?: string | null;
  type?: string;
  function?: { name?: string | null; arguments?: unknown };
  extra_content?: Record<string, unknown>;
}

interface Slot {
  call: ChatToolCall;
  /** The id the server gave (may be empty), to tell calls apart. */
  serverId: string;
  /** The index the server gave it, if any. */
  index?: number;
  position: number;
}

/** True when the text is one complete JSON value: more pieces would make it invalid. */
function isCompleteJson(text: string): boolean {
  if (!text.trim()) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Whether `args`, sent as an object, are the arguments `text` already holds. */
function sameArguments(text: string, args: unknown): boolean {
  if (!args || typeof args !== 'object') return false;
  return JSON.stringify(JSON.parse(text)) === JSON.stringify(args);
}

export function argumentsText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export class ToolCallAssembler {
  private readonly slots: Slot[] = [];
  private readonly byIndex = new Map<number, Slot>();
  private readonly byId = new Map<string, Slot>();
  private readonly usedIds = new Set<string>();

  constructor(private readonly handlers: StreamHandlers = {}) {}

  get count(): number {
    return this.slots.length;
  }

  add(deltas: readonly ToolCallDelta[]): void {
    for (const d of deltas) this.addOne(d);
  }

  private addOne(d: ToolCallDelta): void {
    const id = typeof d.id === 'string' ? d.id : '';
    const index = typeof d.index === 'number' && Number.isInteger(d.index) && d.index >= 0 ? d.index : undefined;
    const name = typeof d.function?.name === 'string' ? d.function.name.trim() : '';
    const piece = argumentsText(d.function?.arguments);
    let slot = this.find(id, index, name, d.function?.arguments);
    if (!slot) slot = this.open(id, index, name);
    else if (name && !slot.call.function.name) {
      slot.call.function.name = name;
      this.handlers.onToolCallStart?.({ index: slot.position, id: slot.call.id, name });
    }
    if (d.extra_content && typeof d.extra_content === 'object') slot.call.extra_content = { ...slot.call.extra_content, ...d.extra_content };
    if (piece) {
      // An object (or a whole JSON text) after whole arguments replaces nothing: it is the same call said again.
      if (typeof d.function?.arguments === 'object' && isCompleteJson(slot.call.function.arguments)) return;
      slot.call.function.arguments += piece;
      this.handlers.onToolCallArgs?.({ index: slot.position, id: slot.call.id, delta: piece });
    }
  }

  private find(id: string, index: number | undefined, name: string, args: unknown): Slot | undefined {
    const known = id ? this.byId.get(id) : undefined;
    if (known) {
      // The same id at another index: a second call the server gave the same id.
      if (index !== undefined && known.index !== undefined && known.index !== index) {
        const there = this.byIndex.get(index);
        return there && (!there.serverId || there.serverId === id) ? there : undefined;
      }
      // A name after a finished call: the next call under the same id, unless it is that call
      // said again (the same name and arguments, repeated as an object).
      if (name && known.call.function.name && isCompleteJson(known.call.function.arguments) && !(name === known.call.function.name && sameArguments(known.call.function.arguments, args))) return undefined;
      return known;
    }
    const latest = this.slots[this.slots.length - 1];
    const candidate = index !== undefined ? this.byIndex.get(index) : latest;
    if (!candidate) return undefined;
    // A different id at a known index: a parallel call sent at the same index.
    if (id && candidate.serverId && candidate.serverId !== id) return undefined;
    // A name arriving after a finished call: the next call (no index, or a reused one), unless
    // it is the same name repeated on a piece that adds nothing new.
    if (name && candidate.call.function.name && isCompleteJson(candidate.call.function.arguments)) return undefined;
    if (name && candidate.call.function.name && name !== candidate.call.function.name && candidate.call.function.arguments.trim()) return undefined;
    if (id && !candidate.serverId) {
      candidate.serverId = id;
      this.byId.set(id, candidate);
    }
    return candidate;
  }

  private open(id: string, index: number | undefined, name: string): Slot {
    const position = this.slots.length;
    const callId = !id ? this.freshId(position) : this.usedIds.has(id) ? this.distinctId(id) : id;
    this.usedIds.add(callId);
    const slot: Slot = { call: { id: callId, type: 'function', function: { name, arguments: '' } }, serverId: id, index, position };
    this.slots.push(slot);
    if (index !== undefined) this.byIndex.set(index, slot);
    if (id) this.byId.set(id, slot);
    this.handlers.onToolCallStart?.({ index: position, id: callId, name });
    return slot;
  }

  private freshId(position: number): string {
    let n = position;
    while (this.usedIds.has(`call_${n}`)) n++;
    return `call_${n}`;
  }

  /**
   * An id no call of this turn has, shaped like the server's (same length and characters where
   * it can be: Mistral, for one, accepts only its own 9 alphanumerics back).
   */
  private distinctId(id: string): string {
    for (let n = 1; ; n++) {
      const tail = String(n);
      const candidate = id.length > tail.length ? id.slice(0, id.length - tail.length) + tail : `${id}_${tail}`;
      if (!this.usedIds.has(candidate)) return candidate;
    }
  }

  result(): ChatToolCall[] {
    return this.slots.map((s) => s.call).filter((c) => c.function.name || c.function.arguments.trim());
  }
}
