// What one endpoint accepts and how it speaks, learned while it is used (never a list of
// product names): an optional request field it refused, reasoning it wants back, a template
// that opens the think block in the prompt, and what its /models says of each model. Kept in
// memory for the process, keyed by base URL.
import type { ServerModelFacts } from './modelFacts';

/** Optional things Loupe sends that a server may refuse by name. */
export const OPTIONAL_FIELDS = ['stream_options', 'reasoning_content', 'reasoning_details', 'reasoning', 'extra_content'] as const;
export type OptionalField = (typeof OPTIONAL_FIELDS)[number];

export interface ProfileView {
  /** Refused fields, no longer sent. */
  dropped: OptionalField[];
  reasoningReplayed: boolean;
  thinkInText: boolean;
  thinkOpensInPrompt: boolean;
  textualToolCalls: boolean;
}

// Words with which servers refuse a field: pydantic's "Extra inputs are not permitted" (Mistral,
// vLLM), "unrecognized"/"unknown" (OpenAI-style validators), "not supported", DeepSeek's
// legacy "please remove the reasoning_content".
const REFUSAL = /extra[_ ]?(?:inputs?|forbidden|fields?)|not (?:permitted|allowed|supported)|unrecogni[sz]ed|unknown (?:field|name|parameter|argument|key)|unsupported|remove|unexpected|invalid (?:field|parameter|key)/i;

export class EndpointProfile {
  private readonly dropped = new Set<OptionalField>();
  /** The endpoint's /models as last read (context windows, images, prices), and when. */
  serverModels: { at: number; models: Map<string, ServerModelFacts> } | null = null;
  reasoningReplayed = false;
  thinkInText = false;
  thinkOpensInPrompt = false;
  /** The server sends reasoning in its own fields: the text is never inside a think block. */
  reasoningSeparated = false;
  textualToolCalls = false;
  /** The question to the server about its template (template.ts), asked once. */
  templateAsked: Promise<void> | null = null;

  constructor(readonly baseURL: string) {}

  sends(field: OptionalField): boolean {
    return !this.dropped.has(field);
  }

  /**
   * A 400/422 that names an optional field it refuses: stop sending that field and say which, so
   * the request is retried once without it. null when the refusal is about something else.
   */
  learnFromRefusal(status: number, message: string, sent: ReadonlySet<OptionalField>): OptionalField | null {
    if (status !== 400 && status !== 422) return null;
    if (!REFUSAL.test(message)) return null;
    // Longest names first: "reasoning_content" must not be read as "reasoning".
    const named = [...sent].sort((a, b) => b.length - a.length).find((f) => new RegExp(`\\b${f}\\b`).test(message) && !this.dropped.has(f));
    if (!named) return null;
    this.dropped.add(named);
    return named;
  }

  view(): ProfileView {
    return {
      dropped: [...this.dropped],
      reasoningReplayed: this.reasoningReplayed,
      thinkInText: this.thinkInText,
      thinkOpensInPrompt: this.thinkOpensInPrompt,
      textualToolCalls: this.textualToolCalls,
    };
  }

  /** One line for the settings: "no stream_options, reasoning replayed". Empty when nothing was learned. */
  describe(): string {
    const parts = [...this.dropped].map((f) => `no ${f}`);
    if (this.reasoningReplayed) parts.push('reasoning replayed');
    if (this.thinkOpensInPrompt) parts.push('think block opened by the template');
    else if (this.thinkInText) parts.push('reasoning in <think> tags');
    if (this.textualToolCalls) parts.push('tool calls read from text');
    return parts.join(', ');
  }
}

/** Where the openai client goes when no base URL is set. */
export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

const profiles = new Map<string, EndpointProfile>();

const key = (baseURL: string): string => baseURL.trim().replace(/\/+$/, '').toLowerCase();

export function endpointProfile(baseURL: string): EndpointProfile {
  const k = key(baseURL);
  let p = profiles.get(k);
  if (!p) profiles.set(k, (p = new EndpointProfile(k)));
  return p;
}

/** The profile if this endpoint was used in this process. */
export function knownProfile(baseURL: string): EndpointProfile | undefined {
  return profiles.get(key(baseURL));
}
