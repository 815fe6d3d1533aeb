import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';
import { isMac } from '../app/platform';
import { useApp } from '../store';
import { AckBatcher } from './ackBatcher';
import { terminalKeyHandler } from './clipboardKeys';
import { XTERM_THEME } from './xtermTheme';

interface TerminalViewProps {
  id: string;
  active: boolean;
}

/** One xterm.js instance bound to one host PTY. Hidden, not unmounted, when its tab is inactive. */
export default function TerminalView({ id, active }: TerminalViewProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const focusNonce = useApp((s) => s.terminalFocusNonce);
  const attachTerminalOutput = useApp((s) => s.attachTerminalOutput);
  const sendTerminalInput = useApp((s) => s.sendTerminalInput);
  const resizeTerminal = useApp((s) => s.resizeTerminal);
  const ackTerminal = useApp((s) => s.ackTerminal);

  useEffect(() => {
    const host = hostRef.current;
    if (termRef.current || !host) return;
    // xterm's default DOM renderer: tests and screen readers can read the rows from the page.
    const term = new Terminal({
      fontFamily: "ui-monospace, 'SF Mono', 'JetBrains Mono', 'Cascadia Code', Menlo, Consolas, 'DejaVu Sans Mono', monospace",
      fontSize: 13,
      lineHeight: 1.2,
      cursorBlink: true,
      cursorStyle: 'bar',
      scrollback: 5000,
      theme: XTERM_THEME,
      allowProposedApi: false,
      macOptionIsMeta: true,
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(host);
    termRef.current = term;
    fitRef.current = fit;

    term.attachCustomKeyEventHandler(terminalKeyHandler(term, (text) => navigator.clipboard.writeText(text), isMac));

    // Flow control: acknowledge only what xterm has parsed, so a flood of output is throttled
    // at the source (the host pauses the PTY) instead of piling up in this page.
    const acks = new AckBatcher((chars) => ackTerminal(id, chars));
    const detachOutput = attachTerminalOutput(id, ({ data, ack }) => {
      term.write(data, ack ? () => acks.written(data.length) : undefined);
    });
    const inputSub = term.onData((data) => sendTerminalInput(id, data));
    const resizeSub = term.onResize(({ cols, rows }) => resizeTerminal(id, cols, rows));

    // Fit on the next frame: a drag of the splitter fires many observations per frame.
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
      detachOutput();
      inputSub.dispose();
      resizeSub.dispose();
      acks.flush();
      term.dispose();
      termRef.current = null;
      fitRef.current = null;
    };
  }, [id, attachTerminalOutput, sendTerminalInput, resizeTerminal, ackTerminal]);

  useEffect(() => {
    if (!active) return;
    // A tab that was hidden could not measure itself; fit now that it is visible.
    if (hostRef.current && hostRef.current.clientWidth > 0) fitRef.current?.fit();
  }, [active]);

  useEffect(() => {
    if (active && focusNonce > 0) termRef.current?.focus();
  }, [active, focusNonce]);

  return <div ref={hostRef} className="terminal-view" hidden={!active} data-active={active} data-terminal-id={id} />;
}
