import { useApp } from '../store';
import { remoteLinkState } from '../store/remoteSlice';

// After a few failed attempts the likeliest cause is a restarted `loupe serve` with a new token.
const HINT_AFTER_ATTEMPTS = 3;

export function ConnectionBanner() {
  const state = useApp((s) => s.connection.state);
  const attempt = useApp((s) => s.connection.attempt);
  const remote = useApp((s) => s.remote);
  const link = useApp((s) => remoteLinkState(s.remote, s.connection));
  const message = useApp((s) => s.connection.link?.message ?? s.remote?.message);
  if (remote && link && link !== 'connected' && link !== 'connecting') {
    return (
      <div className="connection-banner" role="status" data-testid="connection-banner" data-state={link}>
        <span className="connection-spinner" aria-hidden="true" />
        <span>
          The link to {remote.label} {link === 'lost' ? 'is lost' : 'dropped'}. Reconnecting… The agent, its commands and terminals keep running there.
        </span>
        {message && <span className="muted">{message}</span>}
      </div>
    );
  }
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
