import { expect, it } from 'vitest';
import { partialNote, scrubStderr } from './ripgrep';

// rg's own words, as it prints them: an ignore file's bad line quotes that file's content.
const STDERR = [
  "rg: ./secrets/.ignore: line 1: error parsing glob 'a{KEY=hunter2': unclosed alternate group",
  './.env: line 2: error parsing glob',
  'rg: ./src/a.ts: Permission denied (os error 13)',
  'rg: regex parse error:',
].join('\n');

it('drops rg messages about paths the caller may not show, keeps the rest', () => {
  const visible = (rel: string) => !rel.startsWith('secrets/') && rel !== '.env';
  const kept = scrubStderr(STDERR, visible);
  expect(kept).not.toContain('hunter2');
  expect(kept).not.toContain('.env');
  expect(kept).toContain('src/a.ts: Permission denied');
  expect(kept).toContain('regex parse error');
  expect(partialNote({ exitCode: 2, stderr: kept, stopped: false, timedOut: false })).not.toContain('secrets');
});
