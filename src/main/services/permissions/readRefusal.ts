// Why the read rules keep a workspace file from the agent, as one function loaded once per use:
// what the prompt's instruction files and the skill and command folders ask before reading a file
// the repository wrote, with the same answer a search gives.
import type { PermissionEngine } from './ruleEngine';

export function readRefusal(engine: PermissionEngine): () => Promise<(rel: string) => string | null> {
  return async () => {
    const { actionFor } = await engine.readDecider();
    return (rel) => {
      const action = actionFor(rel);
      return action === 'allow' ? null : action === 'deny' ? 'is denied to the agent by the read rules, so it is not read' : 'needs approval to read under the read rules, so it is not read';
    };
  };
}
