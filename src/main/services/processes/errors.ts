import { LoupeError } from '../../errors';

export class ProcessNotFoundError extends LoupeError {
  constructor(id: string, known: readonly string[]) {
    const fact = `No background process ${id}. ${known.length ? `Known: ${known.join(', ')}.` : 'None was started in this workspace.'}`;
    super('PROCESS_NOT_FOUND', `${fact} Call process_list to see them.`);
    this.forPerson = fact;
  }
}

export class ProcessLimitError extends LoupeError {
  constructor(limit: number, running: readonly string[]) {
    const fact = `This workspace already runs ${limit} background processes (${running.join(', ')}), its limit ("limits.max_processes" in .loupe/config.json).`;
    super('PROCESS_LIMIT', `${fact} Stop one with process_kill first.`);
    this.forPerson = `${fact} Stop one in the Processes pane to let another start.`;
  }
}
