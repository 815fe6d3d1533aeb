// Images as the chat API takes them: an `image_url` part holding a data URL, of the types and
// sizes providers accept. One place for the person's attached images and the images a tool
// returns (docs/architecture.md, "Images").
import type { UserContentPart } from './types';

/** Bytes of one image (providers refuse larger ones: OpenAI 20 MB, others 5 MB). */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

/** Bytes held by a base64 string. */
export const base64Bytes = (data: string): number => Math.floor((data.replace(/=+$/, '').length * 3) / 4);

export const isBase64 = (data: string): boolean => /^[A-Za-z0-9+/]*={0,2}$/.test(data);

/** Data of a type and size every provider takes (a provider refuses the whole request otherwise). */
export const sendableImage = (mimeType: string, base64: string): boolean =>
  (IMAGE_TYPES as readonly string[]).includes(mimeType) && isBase64(base64) && base64Bytes(base64) <= IMAGE_MAX_BYTES;

export const imagePart = (mimeType: string, base64: string): UserContentPart => ({ type: 'image_url', image_url: { url: `data:${mimeType};base64,${base64}` } });
