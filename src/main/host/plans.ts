// A plan-mode answer kept as a Markdown artifact of its session (docs/architecture.md, "Plan
// mode"), under .loupe/, which git is told to ignore first: planning leaves the repository clean.
import type { WorkspaceServices } from '../workspace/compose';

export async function savePlan(services: WorkspaceServices, sessionId: string, correlationId: string, text: string): Promise<string> {
  await services.modlog.excludeFromGit().catch(() => undefined);
  return services.sessions.savePlan(sessionId, correlationId, text);
}
