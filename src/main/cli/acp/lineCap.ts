// Bounds each line of the client's stream before the ACP SDK reads it: the SDK ends the whole
// connection on a line over its limit, so a longer line is dropped here (never buffered whole)
// and replaced by a short line that is not JSON, which the SDK answers with a parse error. The
// connection, and every session on it, goes on.
import { DEFAULT_MAX_MESSAGE_BYTES } from '@agentclientprotocol/sdk';

/** A line longer than this (bytes) is refused; the SDK's own limit is a little above. */
export const MAX_LINE_BYTES = DEFAULT_MAX_MESSAGE_BYTES - 1024;

const NEWLINE = 0x0a;
const REFUSED = new TextEncoder().encode('<a line over the size limit was dropped>\n');

export function capLines(maxBytes = MAX_LINE_BYTES): TransformStream<Uint8Array, Uint8Array> {
  let length = 0;
  let dropping = false;
  return new TransformStream({
    transform(chunk, controller) {
      let start = 0;
      while (start < chunk.length) {
        const nl = chunk.indexOf(NEWLINE, start);
        const end = nl === -1 ? chunk.length : nl + 1;
        const piece = end - start;
        if (!dropping && length + piece - (nl === -1 ? 0 : 1) > maxBytes) {
          dropping = true;
        }
        if (!dropping) controller.enqueue(chunk.subarray(start, end));
        length += piece;
        if (nl !== -1) {
          if (dropping) controller.enqueue(REFUSED);
          dropping = false;
          length = 0;
        }
        start = end;
      }
    },
  });
}
