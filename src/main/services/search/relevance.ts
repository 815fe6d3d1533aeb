// code_search ranking. A score in [0, 1] that is the sum of a few named parts,
// each of which a user can check by looking at the line and the path:
//   definition  0.40  the line defines the matched symbol (0.15 if it defines something else)
//   word        0.20  the match is a whole word, not part of a longer identifier
//   density     0.20  how often the file matches (log scale, saturating at 20 lines)
//   depth       0.10  shallower paths first (1 / (1 + folders deep))
//   source      0.10  not a test, fixture, vendored, built or minified file
export const WEIGHTS = { definition: 0.4, definitionOther: 0.15, word: 0.2, density: 0.2, depth: 0.1, source: 0.1 } as const;

export interface ScoreInput {
  path: string;
  text: string;
  /** [start, end) character offsets of each match in `text`. */
  spans: [number, number][];
  fileMatches: number;
}

export interface Score {
  score: number;
  reasons: string[];
}

const NAME = '([A-Za-z_$][\\w$]*)';
const DEFINITIONS: RegExp[] = [
  new RegExp(`\\b(?:function\\*?|class|interface|type|enum|struct|trait|def|fn|func|module|namespace|object|record|macro_rules!)\\s+${NAME}`, 'd'),
  new RegExp(`\\b(?:const|let|var|val)\\s+${NAME}\\s*[:=]`, 'd'),
  // Go methods: func (r *T) Name(
  new RegExp(`\\bfunc\\s*\\([^)]*\\)\\s*${NAME}\\s*\\(`, 'd'),
  // Methods in a class body: `  async name(args) {` (control keywords excluded below).
  new RegExp(`^\\s*(?:(?:public|private|protected|static|async|override|readonly|get|set)\\s+)*${NAME}\\s*\\([^)]*\\)\\s*(?::[^={]+)?\\{\\s*$`, 'd'),
];
const NOT_NAMES = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'with', 'function', 'else']);
const NON_SOURCE = /(^|\/)(test|tests|__tests__|spec|specs|fixtures?|__mocks__|vendor|third_party|node_modules|dist|build|out|generated)\/|\.(test|spec|min|generated)\.[^/]+$|\.d\.ts$/;

/** Offsets of the name a definition line defines, if it is one. */
export function definedName(text: string): [number, number] | null {
  for (const re of DEFINITIONS) {
    const m = re.exec(text);
    if (!m || NOT_NAMES.has(m[1])) continue;
    return m.indices![1]!;
  }
  return null;
}

const WORD_CHAR = /[\w$]/;
const isWordChar = (c: string | undefined): boolean => !!c && WORD_CHAR.test(c);

const round = (n: number): number => Math.round(n * 100) / 100;

/** The parts of the score that depend on the path alone, the same for every match of a file. */
export interface PathScore {
  depth: number;
  source: boolean;
}

export function pathScore(path: string): PathScore {
  let depth = 0;
  for (let i = path.indexOf('/'); i !== -1; i = path.indexOf('/', i + 1)) depth++;
  return { depth, source: !NON_SOURCE.test(path) };
}

/**
 * `explain: false` skips the reason strings: ranking thousands of matches needs only the number.
 * `byPath`: pathScore(input.path), when the caller scores many matches of one file.
 */
export function relevance(input: ScoreInput, explain = true, byPath: PathScore = pathScore(input.path)): Score {
  const reasons: string[] = [];
  let score = 0;
  const add = (value: number, reason: () => string) => {
    if (value <= 0) return;
    score += value;
    if (explain) reasons.push(`${reason()} (+${round(value).toFixed(2)})`);
  };

  const def = definedName(input.text);
  if (def) {
    const [a, b] = def;
    const definesMatch = input.spans.some(([s, e]) => s < b && e > a);
    if (definesMatch) add(WEIGHTS.definition, () => 'defines the match');
    else add(WEIGHTS.definitionOther, () => 'definition line');
  }
  if (input.spans.some(([s, e]) => e > s && !isWordChar(input.text[s - 1]) && !isWordChar(input.text[e]))) add(WEIGHTS.word, () => 'whole word');
  const n = input.fileMatches;
  add(WEIGHTS.density * Math.min(1, Math.log2(1 + n) / Math.log2(21)), () => `${n} matching line${n === 1 ? '' : 's'} in file`);
  const { depth } = byPath;
  add(WEIGHTS.depth / (1 + depth), () => `${depth} folder${depth === 1 ? '' : 's'} deep`);
  if (byPath.source) add(WEIGHTS.source, () => 'source file');
  return { score: round(Math.min(1, score)), reasons };
}
