// Language names as a model or user writes them, mapped to ripgrep's built-in --type names.
// Anything not listed is passed through, so every rg type (`rg --type-list`) still works.
const ALIASES: Record<string, string> = {
  typescript: 'ts',
  tsx: 'ts',
  javascript: 'js',
  jsx: 'js',
  python: 'py',
  golang: 'go',
  rs: 'rust',
  'c++': 'cpp',
  'c#': 'csharp',
  rb: 'ruby',
  shell: 'sh',
  bash: 'sh',
  zsh: 'sh',
  kt: 'kotlin',
  yml: 'yaml',
  terraform: 'tf',
};

/** "typescript|javascript", "ts, py" or one name → rg type names; empty when none given. */
export function rgTypesFor(language: string | undefined): string[] {
  if (!language) return [];
  const names = language
    .split(/[|,\s]+/)
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  return [...new Set(names.map((n) => ALIASES[n] ?? n))];
}
