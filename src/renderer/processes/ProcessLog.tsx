import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { useApp } from '../store';
import { AckBatcher } from '../terminal/ackBatcher';
import { XTERM_THEME } from '../terminal/xtermTheme';

/**
 * A background process's live log in a read-only xterm, with the terminal's flow control: only
 * what xterm has parsed is acknowledged, and the host sends no more while too much is unacked.
 */
export default function ProcessLog({ id }: { id: string }) {
  const hostRef = useRef<HTMLDivElement>(null);
  const attachProcessLog = useApp((s) => s.attachProcessLog);
  const ackProcessLog = useApp((s) => s.ackProcessLog);

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const term = new Terminal({
      fontFamily: "ui-monospace, 'SF Mono', 'JetBrains Mono', 'Cascadia Code', Menlo, Consolas, 'DejaVu Sans Mono', monospace",
      fontSize: 12,
      lineHeight: 1.2,
      scrollback: 5000,
      disableStdin: true,
      cursorInactiveStyle: 'none',
      theme: XTERM_THEME,
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(host);
    const acks = new AckBatcher((chars) => ackProcessLog(id, chars));
    const detach = attachProcessLog(id, ({ data, ack }) => term.write(data, ack ? () => acks.written(data.length) : undefined));
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        if (host.clientWidth > 0 && host.clientHeight > 0) fit.fit();
      });
    });
    observer.observe(host);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      detach();
      acks.flush();
      term.dispose();
    };
  }, [id, attachProcessLog, ackProcessLog]);

  return <div ref={hostRef} className="process-log" data-testid="process-log" data-process-id={id} />;
}
