// `loupe run --queue`: further lines on stdin are further messages, each sent when the request
// before it has ended. Blank lines are skipped; the end of stdin ends the run once all are sent.
import { createInterface } from 'node:readline';

export interface LineQueue {
  /** The next message, or null once the input has ended and every line was taken. */
  next(signal?: AbortSignal): Promise<string | null>;
  close(): void;
}

export function lineQueue(input: NodeJS.ReadableStream): LineQueue {
  const lines: string[] = [];
  let ended = false;
  let wake: (() => void) | null = null;
  const rl = createInterface({ input, crlfDelay: Infinity });
  rl.on('line', (line) => {
    if (!line.trim()) return;
    lines.push(line);
    wake?.();
  });
  rl.on('close', () => {
    ended = true;
    wake?.();
  });
  return {
    async next(signal) {
      while (!lines.length && !ended && !signal?.aborted) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          signal?.addEventListener('abort', () => resolve(), { once: true });
        });
        wake = null;
      }
      return signal?.aborted ? null : (lines.shift() ?? null);
    },
    close: () => rl.close(),
  };
}
