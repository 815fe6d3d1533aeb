import type { SlashCommandView } from '../../shared/contract';
import { useApp } from '../store';

const GROUPS: { source: SlashCommandView['source']; title: string }[] = [
  { source: 'personal', title: 'Yours' },
  { source: 'repository', title: 'This repository' },
];

/**
 * The skills and commands in reach, by whose they are, each with what is wrong with it: a
 * description cut to the specification's length, front matter read line by line, a name another
 * takes (a repository's never replaces the person's), a file that could not be read.
 */
export function SkillsCommandsSection() {
  const all = useApp((s) => s.slashCommands);
  const problems = useApp((s) => s.slashProblems);
  const error = useApp((s) => s.slashError);
  if (!all) return null;
  const builtins = all.filter((c) => c.source === 'built-in');
  return (
    <div className="settings-skills" data-testid="settings-skills">
      <div className="settings-title settings-section">Skills and commands</div>
      {error && <div className="settings-fail">{error}</div>}
      {GROUPS.map((g) => {
        const rows = all.filter((c) => c.source === g.source);
        return (
          <div key={g.source} className="skills-group" data-testid="skills-group" data-source={g.source}>
            <div className="skills-group-title">
              {g.title} <span className="muted">· {rows.filter((r) => r.kind === 'skill').length} skills, {rows.filter((r) => r.kind === 'command').length} commands</span>
            </div>
            {rows.length === 0 && <div className="muted settings-note">{g.source === 'personal' ? 'None: ~/.claude/skills, ~/.agents/skills, ~/.claude/commands and ~/.codex/prompts are read.' : 'None: .claude/skills, .agents/skills, .github/skills, .claude/commands, .github/prompts, .gemini/commands and others are read.'}</div>}
            <ul className="skills-list">
              {rows.map((c) => (
                <SkillRow key={`${c.kind}:${c.path}`} item={c} />
              ))}
            </ul>
          </div>
        );
      })}
      {problems.length > 0 && (
        <ul className="skills-unread" data-testid="skills-unread">
          {problems.map((p) => (
            <li key={p.path} className="skill-problem">
              <code>{p.path}</code> {p.reason}
            </li>
          ))}
        </ul>
      )}
      <div className="muted settings-note">Built in: {builtins.map((b) => `/${b.name}`).join(', ')}. A skill’s allowed-tools apply only while it is in use; a repository’s only once the folder is trusted and you approve them.</div>
    </div>
  );
}

function SkillRow({ item: c }: { item: SlashCommandView }) {
  return (
    <li className={c.shadowed_by ? 'skill-row shadowed' : 'skill-row'} data-testid="skill-row" data-name={c.name} data-kind={c.kind} data-source={c.source} {...(c.shadowed_by ? { 'data-shadowed': 'true' } : {})}>
      <div className="skill-head">
        <span className={`slash-kind ${c.kind}`}>{c.kind === 'skill' ? 'skill' : '/'}</span>
        <strong>/{c.name}</strong>
        {c.argument_hint && <span className="muted"> {c.argument_hint}</span>}
        <span className="spacer" />
        <code className="muted skill-path">{c.path}</code>
      </div>
      <div className="skill-description">{c.description || <span className="muted">(no description)</span>}</div>
      {c.allowed_tools && c.allowed_tools.length > 0 && <div className="muted skill-tools">allowed-tools: {c.allowed_tools.join(', ')}</div>}
      {c.problems.length > 0 && (
        <ul className="skill-problems">
          {c.problems.map((p) => (
            <li key={p} className="skill-problem" data-testid="skill-problem">
              {p}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
