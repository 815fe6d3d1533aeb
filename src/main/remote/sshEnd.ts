// The ssh way to a remote machine: every command, the host's link and the forwards share one
// master connection (ssh.ts).
import type { ChildProcess } from 'node:child_process';
import type { RemoteEnd, RunOutput } from './end';
import type { SshLink } from './ssh';

export class SshEnd implements RemoteEnd {
  readonly kind = 'ssh' as const;
  readonly label: string;

  constructor(readonly ssh: SshLink) {
    this.label = ssh.destination + (ssh.target.port ? `:${ssh.target.port}` : '');
  }

  connect(signal?: AbortSignal): Promise<void> {
    return this.ssh.connect(signal);
  }

  async run(command: string, input?: NodeJS.ReadableStream | Buffer, signal?: AbortSignal): Promise<RunOutput> {
    const r = await this.ssh.run(command, { input, signal });
    return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
  }

  stream(command: string): ChildProcess {
    return this.ssh.stream(command);
  }

  forward(local: number, remote: number): Promise<void> {
    return this.ssh.forwardLocal(local, remote);
  }

  unforward(local: number, remote: number): Promise<void> {
    return this.ssh.cancelLocal(local, remote);
  }

  async reverse(socket: string, host: string, port: number): Promise<boolean> {
    await this.ssh.forwardRemoteSocket(socket, host, port);
    return true;
  }

  async generation(): Promise<string> {
    return String(await this.ssh.masterPid());
  }

  async close(): Promise<void> {
    // The master stays for its ControlPersist time: another window or command may use it.
  }
}
