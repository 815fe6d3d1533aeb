// The language servers' settings as `.loupe/config.json` and the front end decide them now: on
// or off (`"lsp": false`, per language `false`), the commands the config names (kept only while
// the folder is trusted; the reader has already set them aside otherwise), whether the person
// trusted the folder (which lets the workspace's own TypeScript be used), and whether servers run
// inside the OS sandbox.
import type { ProjectRules } from '../permissions/projectConfig';
import type { LspSettings } from './serverTable';

export function lspSettings(project: ProjectRules, opts: { enabled: boolean; sandboxed: boolean }): LspSettings {
  const lsp = project.config.lsp;
  const entries = typeof lsp === 'object' ? Object.entries(lsp) : [];
  const trusted = project.trustedByPerson === true;
  return {
    enabled: opts.enabled && lsp !== false,
    off: entries.filter(([, v]) => v === false).map(([k]) => k),
    configured: trusted ? Object.fromEntries(entries.flatMap(([k, v]) => (v ? [[k, v]] : []))) : {},
    trusted,
    sandboxed: opts.sandboxed,
    denyRead: project.rules.filter((r) => r.kind === 'read' && r.action === 'deny').map((r) => r.pattern),
  };
}
