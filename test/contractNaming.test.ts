// The contract's naming rule (docs/architecture.md, "Naming on each boundary"): channel names are
// `noun.verb` with camelCase words; every payload field on the wire is snake_case. The fields
// that predate the rule are listed below and stay (external programs and tests read them); a
// new camelCase field fails here with its place named.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const CONTRACT = path.resolve(__dirname, '../src/shared/contract.ts');

/** Wire fields older than the rule: `Owner.field`, Owner being the declaration (or the channel) that holds it. */
const EXCEPTIONS = new Set(['WorkspaceInfo.isGitRepo', 'FileContent.tooLarge', 'ApprovalRequestView.createdAt', 'terminal.exit.exitCode']);

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const CHANNEL = /^[a-z][a-z0-9]*(\.[a-z][a-zA-Z0-9]*)+$/;
const CHANNEL_MAPS = new Set(['HostRequests', 'HostEvents']);

interface Field {
  owner: string;
  name: string;
  line: number;
  /** Offset of the field's first character. */
  start: number;
}

/** Every property name in the contract's types, with the declaration or channel that holds it. */
function fieldsOf(text: string): { fields: Field[]; channels: string[] } {
  const sf = ts.createSourceFile('contract.ts', text, ts.ScriptTarget.Latest, true);
  const fields: Field[] = [];
  const channels: string[] = [];
  const visit = (node: ts.Node, owner: string, inMap: boolean) => {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) {
      const name = node.name.text;
      ts.forEachChild(node, (c) => visit(c, name, CHANNEL_MAPS.has(name)));
      return;
    }
    if (ts.isPropertySignature(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
      const name = node.name.text;
      if (inMap && node.parent && ts.isInterfaceDeclaration(node.parent)) {
        channels.push(name);
        ts.forEachChild(node, (c) => visit(c, name, false));
        return;
      }
      fields.push({ owner, name, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, start: node.getStart() });
    }
    ts.forEachChild(node, (c) => visit(c, owner, inMap));
  };
  visit(sf, '', false);
  return { fields, channels };
}

/** Wire names ('params' and 'result' are the maps' own envelope, not payload). */
function offenders(text: string): string[] {
  const { fields, channels } = fieldsOf(text);
  return [
    ...channels.filter((c) => !CHANNEL.test(c)).map((c) => `channel ${c}: use noun.verb`),
    ...fields
      .filter((f) => !SNAKE.test(f.name) && !EXCEPTIONS.has(`${f.owner}.${f.name}`))
      .map((f) => `contract.ts:${f.line} ${f.owner}.${f.name}: wire fields are snake_case`),
  ];
}

const contract = readFileSync(CONTRACT, 'utf8');

describe('the wire contract names things one way', () => {
  it('every payload field is snake_case but the listed older ones; channels are noun.verb', () => {
    expect(offenders(contract)).toEqual([]);
  });

  it('every listed exception still exists (a fixed one leaves the list)', () => {
    const present = new Set(fieldsOf(contract).fields.map((f) => `${f.owner}.${f.name}`));
    expect([...EXCEPTIONS].filter((e) => !present.has(e))).toEqual([]);
  });

  it('reads the real contract: it finds the channels and the fields the UI depends on', () => {
    const { fields, channels } = fieldsOf(contract);
    expect(channels).toEqual(expect.arrayContaining(['file.read', 'modlog.rollback', 'chat.event', 'terminal.exit']));
    expect(fields.map((f) => `${f.owner}.${f.name}`)).toEqual(expect.arrayContaining(['ModificationView.modification_id', 'terminal.exit.exitCode', 'WorkspaceInfo.isGitRepo']));
  });

  it('catches a new camelCase field planted anywhere in a payload type', () => {
    const { fields } = fieldsOf(contract);
    const camel = fc.tuple(fc.stringMatching(/^[a-z]{1,8}$/), fc.stringMatching(/^[A-Z][a-z]{0,8}$/)).map(([a, b]) => a + b);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: fields.length - 1 }), camel, (i, name) => {
        // A sibling right before the i-th field, in the same type (one-line payloads included).
        const at = fields[i].start;
        const planted = `${contract.slice(0, at)}${name}?: string; ${contract.slice(at)}`;
        const found = offenders(planted);
        expect(found).toHaveLength(1);
        expect(found[0]).toContain(`.${name}: wire fields are snake_case`);
      }),
      { numRuns: 200 },
    );
  });
});
