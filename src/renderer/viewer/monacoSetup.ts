// The one place that loads Monaco. We take the core API plus the handful of editor features a
// read-only viewer needs, and the Monarch tokenizers for syntax colouring; the language
// services (TypeScript, CSS, HTML workers) stay out, which keeps the bundle a fraction of
// `monaco-editor`'s full entry. Later features (the diff view) add their imports here.
//
// Specifiers are `monaco-editor/<path under esm/vs>`: the package's export map adds the
// `esm/vs` prefix and `.js` suffix itself, so `monaco-editor/esm/vs/...` would not resolve.
import * as monaco from 'monaco-editor/editor/editor.api';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import 'monaco-editor/features/codicon/register';
import 'monaco-editor/features/bracketMatching/register';
import 'monaco-editor/features/clipboard/register';
import 'monaco-editor/features/contextmenu/register';
import 'monaco-editor/features/diffEditor/register';
import 'monaco-editor/features/find/register';
import 'monaco-editor/features/folding/register';
import 'monaco-editor/features/gotoLine/register';
import 'monaco-editor/features/hover/register';
import 'monaco-editor/features/readOnlyMessage/register';
import 'monaco-editor/features/stickyScroll/register';
import 'monaco-editor/features/wordHighlighter/register';
import 'monaco-editor/languages/definitions/register.all';
import { jsonDefaults } from 'monaco-editor/languages/features/json/register';

// The editor worker (diffing, word ranges) is bundled by Vite as its own file, which the CSP's
// worker-src 'self' allows. Every label gets it: we load no language-service workers.
self.MonacoEnvironment = {
  getWorker: () => new EditorWorker(),
};

// JSON has no Monarch grammar; its language service colours it on the main thread. Everything
// that would need the JSON worker (validation, hovers, formatting) is off in a read-only viewer.
jsonDefaults.setDiagnosticsOptions({ validate: false });
jsonDefaults.setModeConfiguration({
  tokens: true,
  documentFormattingEdits: false,
  documentRangeFormattingEdits: false,
  completionItems: false,
  hovers: false,
  documentSymbols: false,
  colors: false,
  foldingRanges: false,
  diagnostics: false,
  selectionRanges: false,
});

monaco.editor.defineTheme('loupe-dark', {
  base: 'vs-dark',
  inherit: true,
  rules: [],
  colors: {
    'editor.background': '#1e2027',
    'editor.lineHighlightBackground': '#ffffff08',
    'editor.lineHighlightBorder': '#00000000',
    'editorLineNumber.foreground': '#4b515c',
    'editorLineNumber.activeForeground': '#a9afba',
    'editorIndentGuide.background1': '#2a2d35',
    'editorIndentGuide.activeBackground1': '#3c414c',
    'editorGutter.background': '#1e2027',
    'editorWidget.background': '#24272e',
    'editorWidget.border': '#363a44',
    'editorStickyScroll.background': '#1e2027',
    'editorStickyScrollHover.background': '#262a32',
    'scrollbarSlider.background': '#ffffff17',
    'scrollbarSlider.hoverBackground': '#ffffff29',
    'scrollbarSlider.activeBackground': '#ffffff33',
    focusBorder: '#4d8dff80',
  },
});
// Set once here, not per editor: the colorizer (chat code blocks) has no editor, and its token
// classes (.mtk1…) only get CSS for the theme that is current.
monaco.editor.setTheme('loupe-dark');

const known = new Set(monaco.languages.getLanguages().map((l) => l.id));

/** The host names languages with Monaco's ids; anything Monaco does not know is shown plain. */
export function monacoLanguage(id: string): string {
  return known.has(id) ? id : 'plaintext';
}

export { monaco };
