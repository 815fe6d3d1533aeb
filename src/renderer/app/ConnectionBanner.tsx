import { useApp } from '../store';

// After a few failed attempts the likeliest cause is a restarted `loupe serve` with a new token.
const HINT_AFTER_ATTEMPTS = 3;

export function ConnectionBanner() {
  const state = useApp((s) => s.connection.state);
  const attempt = useApp((s) => s.connection.attempt);
  if (state !== 'reconnecting' && state !== 'lost') return null;
  return (
    <div className="connection-banner" role="status" data-testid="connection-banner">
      <span className="connection-spinner" aria-hidden="true" />
      <span>Connection to the Loupe host lost. Reconnecting…</span>
      {attempt >= HINT_AFTER_ATTEMPTS && (
        <span className="muted">If <code>loupe serve</code> was restarted, open the new URL it printed.</span>
      )}
    </div>
  );
}
