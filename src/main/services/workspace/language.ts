// Language ids follow Monaco's, so the viewer can use them as they are.
import path from 'node:path';

const BY_EXTENSION: Record<string, string> = {
  '.ts': 'typescript', '.tsx': 'typescript', '.mts': 'typescript', '.cts': 'typescript',
  '.js': 'javascript', '.jsx': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript',
  '.json': 'json', '.jsonc': 'json', '.md': 'markdown', '.markdown': 'markdown',
  '.py': 'python', '.go': 'go', '.rs': 'rust', '.java': 'java', '.kt': 'kotlin',
  '.c': 'c', '.h': 'c', '.cc': 'cpp', '.cpp': 'cpp', '.hpp': 'cpp', '.cs': 'csharp',
  '.rb': 'ruby', '.php': 'php', '.swift': 'swift', '.scala': 'scala', '.lua': 'lua',
  '.sh': 'shell', '.bash': 'shell', '.zsh': 'shell', '.ps1': 'powershell',
  '.html': 'html', '.htm': 'html', '.css': 'css', '.scss': 'scss', '.less': 'less',
  '.xml': 'xml', '.svg': 'xml', '.yaml': 'yaml', '.yml': 'yaml', '.toml': 'ini', '.ini': 'ini',
  '.sql': 'sql', '.graphql': 'graphql', '.dockerfile': 'dockerfile', '.r': 'r', '.dart': 'dart',
};

const BY_NAME: Record<string, string> = {
  dockerfile: 'dockerfile', makefile: 'makefile', '.gitignore': 'ignore', '.bashrc': 'shell', '.zshrc': 'shell',
};

export function languageOf(file: string): string {
  const base = path.basename(file).toLowerCase();
  return BY_NAME[base] ?? BY_EXTENSION[path.extname(base)] ?? 'plaintext';
}
