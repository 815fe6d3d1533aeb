// The README's pictures are taken by the specs that reach those screens. A test run must leave
// the clone as it found it, so they are written into docs/ only when asked (LOUPE_WRITE_DOCS=1,
// like the README's tool table), and into test-results/ otherwise, to be looked at.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';

export async function docsShot(page: Page, name: string): Promise<void> {
  const dir = process.env.LOUPE_WRITE_DOCS === '1' ? fileURLToPath(new URL('../../docs', import.meta.url)) : path.resolve('test-results', 'docs');
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, name) });
}
