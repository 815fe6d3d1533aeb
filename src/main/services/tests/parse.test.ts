// The parsers against committed transcripts of real mocha, jest, pytest and go test runs
// (test/fixtures/transcripts, captured once from the real tools; see its README).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTestOutput } from './parse';

const transcript = (name: string) => readFileSync(path.resolve(__dirname, '../../../../test/fixtures/transcripts', name), 'utf8');

describe('test output parsers on real transcripts', () => {
  it('mocha (spec reporter)', () => {
    expect(parseTestOutput(transcript('mocha-spec.txt'))).toEqual({ framework: 'mocha', passed: 2, failed: 2, skipped: 1, failing: ['calc is broken', 'calc nested fails too'] });
  });

  it('jest', () => {
    expect(parseTestOutput(transcript('jest.txt'))).toEqual({ framework: 'jest', passed: 2, failed: 2, skipped: 1, failing: ['calc › is broken', 'calc › nested › fails too'] });
  });

  it('pytest, verbose and -q', () => {
    const want = { framework: 'pytest', passed: 2, failed: 2, skipped: 1, failing: ['test_calc.py::test_add_broken', 'test_calc.py::TestGroup::test_inside_class_fails'] };
    expect(parseTestOutput(transcript('pytest.txt'))).toEqual(want);
    expect(parseTestOutput(transcript('pytest-q.txt'))).toEqual(want);
  });

  it('go test -v counts tests and subtests; without -v only failures are known', () => {
    expect(parseTestOutput(transcript('go-test-v.txt'))).toEqual({ framework: 'go', passed: 2, failed: 3, skipped: 1, failing: ['TestAddBroken', 'TestTable', 'TestTable/bad'] });
    expect(parseTestOutput(transcript('go-test.txt'))).toMatchObject({ framework: 'go', failed: 3, failing: ['TestAddBroken', 'TestTable', 'TestTable/bad'] });
  });

  it('says nothing about output it does not recognise', () => {
    expect(parseTestOutput('compiling…\nerror: something broke\n')).toBeNull();
  });
});
