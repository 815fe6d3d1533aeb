// What a terminal would show, as plain text for the model: escape sequences removed and
// carriage-return progress bars collapsed to their final state.

// CSI, OSC (BEL or ST terminated), DCS/SOS/PM/APC strings, two-byte escapes, 8-bit CSI.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]|\x9b[0-?]*[ -/]*[@-~]/g;
// Other C0 controls except tab and newline (CR is handled per line first).
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f]/g;

export function stripAnsi(text: string): string {
  return text
    .replace(ESCAPES, '')
    .split('\n')
    .map((line) => {
      const l = line.endsWith('\r') ? line.slice(0, -1) : line;
      const cr = l.lastIndexOf('\r');
      return (cr === -1 ? l : l.slice(cr + 1)).replace(CONTROLS, '');
    })
    .join('\n');
}
