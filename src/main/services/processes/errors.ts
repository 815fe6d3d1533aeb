import { LoupeError } from '../../errors';

export class ProcessNotFoundError extends LoupeError {
  constructor(id: string, known: readonly string[]) {
    super('PROCESS_NOT_FOUND', `No background process ${id}. ${known.length ? `Known: ${known.join(', ')}.` : 'None was started in this workspace.'} Call process_list to see them.`);
  }
}

export class ProcessLimitError extends LoupeError {
  constructor(limit: number, running: readonly string[]) {
    super('PROCESS_LIMIT', `This workspace already runs ${limit} background processes (${running.join(', ')}), its limit ("limits.max_processes" in .loupe/config.json). Stop one with process_kill first.`);
  }
}
