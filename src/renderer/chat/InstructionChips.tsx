import type { InstructionFileView } from '../../shared/contract';
import { useApp } from '../store';
import './instructions.css';

/** A chip's words: the path as the project names it; the person's own file as theirs. */
const label = (f: InstructionFileView) => (f.kind === 'personal' ? 'Your AGENTS.md' : f.path);

function title(f: InstructionFileView): string {
  const cut = f.chars < f.total_chars ? ` — cut to ${f.chars.toLocaleString()} of ${f.total_chars.toLocaleString()} characters to fit` : '';
  const where = f.kind === 'personal' ? `${f.path} (yours, for every project)` : f.path;
  return `${where}: applies ${f.applies}${cut}. Click to open.`;
}

/**
 * Which instruction files the agent is told, one chip each (click opens the file; the person's
 * own file lives outside the workspace, so it opens the full prompt in Settings), and the files
 * skipped with why.
 */
export function InstructionChips() {
  const prompt = useApp((s) => s.systemPrompt);
  const openFile = useApp((s) => s.openFilePath);
  const openSettings = useApp((s) => s.openSettings);
  if (!prompt || (!prompt.files.length && !prompt.skipped.length)) return null;
  return (
    <div className="instruction-files" data-testid="instruction-files" aria-label="Instruction files the agent follows">
      <span className="instruction-files-label" title={prompt.sent ? 'As sent with the last request' : 'As the next request will send them'}>
        Instructions
      </span>
      {prompt.files.map((f) => (
        <button
          key={f.path}
          type="button"
          className={`instruction-file${f.chars < f.total_chars ? ' cut' : ''}`}
          data-testid="instruction-file"
          data-path={f.path}
          title={title(f)}
          onClick={() => (f.kind === 'personal' ? openSettings() : void openFile(f.path))}
        >
          {label(f)}
        </button>
      ))}
      {prompt.skipped.map((s) => (
        <span key={s.path} className="instruction-file skipped" data-testid="instruction-file-skipped" data-path={s.path} title={`${s.path} ${s.reason}.`}>
          {s.path} (skipped)
        </span>
      ))}
    </div>
  );
}
