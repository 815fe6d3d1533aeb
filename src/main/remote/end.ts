// A way to a remote machine: over ssh, or into a dev container through its engine. The session
// (session.ts) asks only these things of it, so both kinds install, start and link the host the
// same way.
import type { ChildProcess } from 'node:child_process';

export interface RunOutput {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RemoteEnd {
  readonly kind: 'ssh' | 'devcontainer';
  /** For people: `alice@box`, `container app (podman)`. */
  readonly label: string;
  /** Makes the way usable (the ssh master up again, the container running); throws with why not. */
  connect(signal?: AbortSignal): Promise<void>;
  /** A shell command there (`sh -c`-safe words only), stdin from `input`. */
  run(command: string, input?: NodeJS.ReadableStream | Buffer, signal?: AbortSignal): Promise<RunOutput>;
  /** A long-lived command there whose stdin and stdout carry the host's link. */
  stream(command: string): ChildProcess;
  /** Makes 127.0.0.1:`remote` there reachable on this machine's 127.0.0.1:`local`. */
  forward(local: number, remote: number): Promise<void>;
  unforward(local: number, remote: number): Promise<void>;
  /**
   * Makes this machine's `host:port` reachable there at the Unix socket `socket` (a folder that
   * exists); returns false when this way cannot (then the model must be reachable from there).
   */
  reverse(socket: string, host: string, port: number): Promise<boolean>;
  /** Something that changes when the way was re-established (the ssh master's pid): forwards must be made again. */
  generation(): Promise<string>;
  /** This version's host is installed there (`base`: its Node and entry, quoted); a container starts it now. */
  hostInstalled?(base: string): Promise<void>;
  /** Lets go of what this session holds (the way itself may stay up for others). */
  close(): Promise<void>;
}
