// One hook that decided something, as the chat shows it (`hook-decision`): which hook, from which
// file, what it decided and why, and how long it took. Under the tool card it was about, or on
// its own line for a prompt's or a stop's hooks.
import type { HookMark } from '../store/chatFold';

const WORDS: Record<HookMark['decision'], string> = {
  allow: 'allowed',
  deny: 'blocked',
  ask: 'asks you',
  block: 'blocked',
  context: 'added context',
  warn: 'warning',
  error: 'failed',
  none: 'said',
  overruled: 'overruled',
};

export function HookDecision({ mark }: { mark: HookMark }) {
  const tone = mark.decision === 'deny' || mark.decision === 'block' ? 'hook-block' : mark.decision === 'warn' || mark.decision === 'error' || mark.decision === 'overruled' ? 'hook-warn' : 'hook-info';
  return (
    <div className={`hook-decision ${tone}`} data-testid="hook-decision" data-event={mark.event} data-decision={mark.decision} data-source={mark.source}>
      <span className="hook-badge">hook</span>
      <span className="hook-what">
        {mark.event} {WORDS[mark.decision]}
      </span>
      <code className="hook-line" title={`${mark.hook} — from ${mark.source}`}>
        {mark.hook}
      </code>
      <span className="hook-source">{mark.source}</span>
      <span className="hook-ms">{mark.ms < 1000 ? `${mark.ms} ms` : `${(mark.ms / 1000).toFixed(1)} s`}</span>
      {mark.reason && <div className="hook-reason">{mark.reason}</div>}
    </div>
  );
}
