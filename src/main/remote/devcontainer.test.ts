import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { forwardPortsOf, parseJsonc } from './devcontainer';

describe('devcontainer.json as people write it', () => {
  it('reads comments and trailing commas, and keeps // and /* inside strings', () => {
    const text = ['{', '  // a comment', '  "image": "example.org/a//b:1", /* inline */', '  "name": "x /* not a comment */",', '  "forwardPorts": [3000, "localhost:8080",],', '}', ''].join('\n');
    expect(parseJsonc(text)).toEqual({ image: 'example.org/a//b:1', name: 'x /* not a comment */', forwardPorts: [3000, 'localhost:8080'] });
  });

  it('reads any JSON value unchanged', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(parseJsonc(JSON.stringify(v, null, 2))).toEqual(JSON.parse(JSON.stringify(v)));
      }),
      { numRuns: 300 },
    );
    expect(parseJsonc('{"a": "x, }", "b": ["y,]",], // c, }\n}')).toEqual({ a: 'x, }', b: ['y,]'] });
  });

  it('forwards the container’s own ports and names what it leaves out', () => {
    expect(forwardPortsOf({ forwardPorts: [3000, 'localhost:5432', '127.0.0.1:8080', 'db:5432', 0, 70000, 'x'] })).toEqual({ ports: [3000, 5432, 8080], skipped: ['db:5432', '0', '70000', 'x'] });
    expect(forwardPortsOf({})).toEqual({ ports: [], skipped: [] });
    expect(forwardPortsOf(null)).toEqual({ ports: [], skipped: [] });
  });
});
