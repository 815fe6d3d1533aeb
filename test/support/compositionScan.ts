// Finds where a workspace service is constructed in a source text, however the class is
// reached: by its name, an alias (`import { ModificationLog as Log }`), a namespace import
// (`new ns.ModificationLog`), a subclass (`extends ModificationLog`) or `Reflect.construct`.

/** A workspace's services: built by the composition root only. */
export const WORKSPACE_SERVICES = [
  'ModificationLog',
  'PermissionEngine',
  'PermissionGate',
  'ApprovalQueue',
  'ProjectConfig',
  'UserSettings',
  'SessionStore',
  'FileIndex',
  'Worktrees',
  'WorkspaceWatcher',
  'PtyService',
  'SkillCatalog',
  'CommandCatalog',
  'ComposedWorkspace',
] as const;

const stripComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:\\'"`])\/\/.*$/gm, '$1');
const escape = (s: string) => s.replace(/[$]/g, '\\$');

/** Each construction in `text` as "Class (as written)". */
export function constructionsIn(text: string): string[] {
  const code = stripComments(text);
  const local = new Map<string, string>(WORKSPACE_SERVICES.map((c) => [c, c]));
  const namespaces: string[] = [];
  for (const m of code.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from/g)) {
    for (const spec of m[1].split(',')) {
      const alias = /^\s*(?:type\s+)?([\w$]+)\s+as\s+([\w$]+)\s*$/.exec(spec);
      if (alias && local.has(alias[1])) local.set(alias[2], alias[1]);
    }
  }
  for (const m of code.matchAll(/import\s+\*\s+as\s+([\w$]+)\s+from/g)) namespaces.push(m[1]);
  const hits: string[] = [];
  for (const [name, cls] of local) {
    const n = escape(name);
    const ns = namespaces.length ? `(?:(?:${namespaces.map(escape).join('|')})\\s*\\.\\s*)?` : '';
    const forms = [
      new RegExp(`\\bnew\\s+${ns}${n}(?![\\w$])`, 'g'),
      new RegExp(`\\bextends\\s+${ns}${n}(?![\\w$])`, 'g'),
      new RegExp(`\\bReflect\\s*\\.\\s*construct\\s*\\(\\s*${ns}${n}(?![\\w$])`, 'g'),
    ];
    for (const re of forms) for (const m of code.matchAll(re)) hits.push(`${cls} (${m[0].replace(/\s+/g, ' ')})`);
  }
  return hits;
}
