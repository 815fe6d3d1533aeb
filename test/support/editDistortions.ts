// The slips each recovery strategy exists for, as distortions of what a faithful model would
// send: old_str and new_str re-indented, stripped of trailing blanks, `cat -n`-prefixed, with
// plain quotes for typographic ones, with the other line ending, escaped, padded with blank
// lines. Shared by test/editInvariant (planned edits) and test/editMapping (one-token edits).
import { plainTypography } from '../../src/main/agent/edit/strategies/typography';
import { isBlank, join, reindented, type EditSpec, type FileSpec } from './editPlan';

export type Distortion = (f: FileSpec, e: EditSpec, lines: { oldLines: string[]; newLines: string[] }) => { oldStr: string; newStr: string } | null;

/** The distortions, each the slip one strategy exists to recover from. */
export const DISTORTIONS: Record<string, { strategy: string; fancy?: boolean; norm?: (s: string) => string; distort: Distortion }> = {
  exact: { strategy: 'exact', distort: (_f, e, l) => ({ oldStr: join(l.oldLines, e), newStr: join(l.newLines, e) }) },
  'crlf-swapped': {
    strategy: 'exact',
    distort: (f, e, l) => {
      const sep = f.lines[e.a].eol === '\n' ? '\r\n' : '\n';
      return { oldStr: join(l.oldLines, e, sep), newStr: join(l.newLines, e, sep) };
    },
  },
  'line-number-prefix': {
    strategy: 'line-number-prefix',
    distort: (_f, e, l) => {
      const arrow = (e.a + e.b) % 2 === 0;
      const prefix = (i: number) => (arrow ? `${String(i).padStart(6)}\u2192` : `${String(i).padStart(6)}\t`);
      if (e.withNewline) return null;
      return { oldStr: l.oldLines.map((x, k) => prefix(e.a + 1 + k) + x).join('\n'), newStr: l.newLines.map((x, k) => prefix(e.a + 1 + k) + x).join('\n') };
    },
  },
  'trailing-whitespace': {
    strategy: 'trailing-whitespace',
    norm: (s) => s.replace(/[ \t]+$/gm, ''),
    // Without a final line break the last line is copied whole: "foo" for "foo\t" is an exact
    // match of a prefix, and exact matches mean what they say.
    distort: (f, e, l) => {
      // A blank first line stripped to nothing would make old_str start at the line break before it.
      const whole = new Set([...(e.withNewline ? [] : [l.oldLines[l.oldLines.length - 1]]), ...(l.oldLines[0].trim() ? [] : [l.oldLines[0]])]);
      const strip = (xs: string[]) => xs.map((x) => (whole.has(x) ? x : x.trimEnd()));
      const newLast = strip(l.newLines)[l.newLines.length - 1];
      // A last line stripped to nothing reads as the end of the line before it.
      if (newLast === '' && ((e.b === f.lines.length - 1 && !f.finalNewline) || !e.withNewline)) return null;
      return { oldStr: join(strip(l.oldLines), e), newStr: join(strip(l.newLines), e) };
    },
  },
  typography: {
    strategy: 'typography',
    fancy: true,
    norm: plainTypography,
    distort: (_f, e, l) => ({ oldStr: join(l.oldLines.map(plainTypography), e), newStr: join(l.newLines.map(plainTypography), e) }),
  },
  indentation: {
    strategy: 'indentation',
    distort: (f, e, l) => {
      const r = reindented(f, e, l);
      return { oldStr: join(r.oldLines, e), newStr: join(r.newLines, e) };
    },
  },
  'blank-lines': {
    strategy: 'blank-lines',
    distort: (f, e, l) => {
      // Blank lines at the edges are what this strategy strips, so the span must not start or end with one.
      // Nor may blank lines border it: the stray ones would then match real ones.
      const border = [f.lines[e.a - 1], f.lines[e.b + 1]].some((x) => x !== undefined && isBlank(x));
      if (border || isBlank(f.lines[e.a]) || isBlank(f.lines[e.b]) || !l.newLines.length || !l.newLines[0].trim() || !l.newLines[l.newLines.length - 1].trim()) return null;
      // One stray line break at either end could be the file's own (the line break before the
      // span, or the span's last one), so each side gets a real blank line or none.
      const mode = (e.a + e.b) % 3;
      const before = mode === 1 ? '' : '\n\n';
      const after = mode === 2 ? '' : e.withNewline ? '\n' : '\n\n';
      return { oldStr: before + join(l.oldLines, e) + after, newStr: before + join(l.newLines, e) + after };
    },
  },
  unescape: {
    strategy: 'unescape',
    distort: (_f, e, l) => (l.oldLines.length < 2 && !e.withNewline ? null : { oldStr: join(l.oldLines, e, '\\n'), newStr: join(l.newLines, e, '\\n') }),
  },
};

