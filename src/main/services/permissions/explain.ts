// The dry run, as text: what would happen to a command, path or URL, and why.
import { describeRule, type Decision } from './types';

export function explainDecision(d: Decision): string {
  const head = `${d.action.toUpperCase()} (${d.kind}) ${d.subject}`;
  const by = d.rule ? `decided by ${describeRule(d.rule)}` : 'decided by the built-in default (no rule matched)';
  const lines = [head, `  ${by}`, `  ${d.reason}`];
  for (const p of d.parts ?? []) lines.push(`  - ${p.action} ${p.kind}: ${p.reason}`);
  if (d.always.length) lines.push(`  "allow always" would add: ${d.always.map((r) => JSON.stringify(r)).join(', ')}`);
  return lines.join('\n');
}
