import { chmodSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/tmp';
import { controlPathFor } from './ssh';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('loupe-ssh-'));
});
afterEach(() => cleanup());

describe("the folder of ssh's shared connections", () => {
  it("is made the person's alone, under the config folder", () => {
    const control = controlPathFor(path.join(dir, 'config'));
    expect(path.basename(control)).toBe('%C');
    expect(statSync(path.dirname(control)).mode & 0o777).toBe(0o700);
  });

  it('is refused when it is open to others or not a folder of theirs, whoever made it first', () => {
    const config = path.join(dir, 'open');
    mkdirSync(path.join(config, 'ssh'), { recursive: true });
    chmodSync(path.join(config, 'ssh'), 0o755);
    expect(() => controlPathFor(config)).toThrow(expect.objectContaining({ code: 'REMOTE_UNAVAILABLE' }));
    chmodSync(path.join(config, 'ssh'), 0o700);
    expect(() => controlPathFor(config, (process.getuid?.() ?? 0) + 1)).toThrow(/not a folder only you can use/);
  });
});
