// Where a JSON text first goes wrong. V8's JSON.parse does not always say (for
// "Unexpected token ']', … is not valid JSON" it gives no position), and a user fixing
// .loupe/config.json by hand needs the line and column.

export interface JsonError {
  offset: number;
  message: string;
}

class Fail extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

export function findJsonError(text: string): JsonError | null {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const describe = () => (i >= text.length ? 'the end of the file' : `'${text[i]}'`);
  const expect = (c: string) => {
    if (text[i] !== c) throw new Fail(i, `expected '${c}' but found ${describe()}`);
    i++;
  };
  const string = () => {
    expect('"');
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) throw new Fail(i, 'bad \\u escape');
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? '')) throw new Fail(i, 'bad escape in a string');
      } else if (text.charCodeAt(i) < 0x20) throw new Fail(i, 'a control character (such as a newline) inside a string');
      i++;
    }
    if (i >= text.length) throw new Fail(i, 'a string is not closed');
    i++;
  };
  /** `{…}` or `[…]`: items separated by commas, no trailing comma. */
  const sequence = (close: string, item: () => void): void => {
    i++;
    ws();
    if (text[i] === close) return void i++;
    for (;;) {
      ws();
      if (text[i] === close) throw new Fail(i, `a trailing comma before ${close}`);
      item();
      ws();
      if (text[i] !== ',') return expect(close);
      i++;
    }
  };
  const member = () => {
    if (text[i] !== '"') throw new Fail(i, `expected a quoted property name but found ${describe()}`);
    string();
    ws();
    expect(':');
    value();
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') return sequence('}', member);
    if (c === '[') return sequence(']', value);
    if (c === '"') return string();
    const lit = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i, i + 64));
    if (!lit) throw new Fail(i, `expected a value but found ${describe()}`);
    i += lit[0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) throw new Fail(i, `unexpected ${describe()} after the end of the value`);
    return null;
  } catch (err) {
    if (err instanceof Fail) return { offset: err.offset, message: err.message };
    throw err;
  }
}
