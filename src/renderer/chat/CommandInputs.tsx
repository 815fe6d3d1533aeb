import { useState, type FormEvent } from 'react';
import { useApp } from '../store';

/**
 * The values a command asks for by name (VS Code's `${input:name}`), asked for before it is sent:
 * one field each, its placeholder the file's; Send sends the message again with them.
 */
export function CommandInputs() {
  const pending = useApp((s) => s.slashInputs);
  const answer = useApp((s) => s.answerSlashInputs);
  const cancel = useApp((s) => s.cancelSlashInputs);
  const [values, setValues] = useState<Record<string, string>>({});
  if (!pending) return null;
  const ready = pending.inputs.every((i) => (values[i.name] ?? '').trim());
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!ready) return;
    const given = Object.fromEntries(pending.inputs.map((i) => [i.name, values[i.name].trim()]));
    setValues({});
    void answer(given);
  };
  return (
    <form className="command-inputs" data-testid="command-inputs" onSubmit={submit} onKeyDown={(e) => e.key === 'Escape' && cancel()}>
      <div className="command-inputs-title">
        <code>/{pending.command}</code> needs {pending.inputs.length === 1 ? 'a value' : 'values'} before it is sent
      </div>
      {pending.inputs.map((i, k) => (
        <label key={i.name}>
          <span>{i.name}</span>
          <input
            className="text-input"
            data-testid="command-input"
            data-name={i.name}
            autoFocus={k === 0}
            placeholder={i.placeholder ?? i.name}
            value={values[i.name] ?? ''}
            onChange={(e) => setValues((v) => ({ ...v, [i.name]: e.target.value }))}
          />
        </label>
      ))}
      <div className="command-inputs-actions">
        <button type="button" className="btn" onClick={cancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" data-testid="command-inputs-send" disabled={!ready}>
          Send
        </button>
      </div>
    </form>
  );
}
