// A session's modes and options as ACP shows them: the modes `act` and `plan` (Loupe's plan mode,
// enforced by the permission gate), both as `modes` and as a `mode` config option (clients use
// one or the other), and the model as a `model` option: the settings' model, and the others the
// endpoint lists.
import type { SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
import type { ChatMode } from '../../../shared/contract';
import { InvalidArgumentError } from '../../errors';

export const MODES: { id: ChatMode; name: string; description: string }[] = [
  { id: 'act', name: 'Act', description: 'Reads, edits and runs commands under your rules; every change is a modification you can review and undo' },
  { id: 'plan', name: 'Plan', description: 'Only reads: nothing in the folder changes, and the answer is a plan kept beside the session (/execute-plan carries it out)' },
];

export const modeOf = (id: unknown): ChatMode => {
  if (id === 'act' || id === 'plan') return id;
  throw new InvalidArgumentError(`There is no mode ${JSON.stringify(id)}: the modes are act and plan.`);
};

export function modeState(mode: ChatMode): SessionModeState {
  return { currentModeId: mode, availableModes: MODES.map((m) => ({ ...m })) };
}

/** The models a session can choose: the one in use first. */
export interface ModelChoice {
  current: string;
  models: string[];
}

export function configOptions(mode: ChatMode, model: ModelChoice | null): SessionConfigOption[] {
  const options: SessionConfigOption[] = [
    {
      id: 'mode',
      name: 'Mode',
      category: 'mode',
      type: 'select',
      currentValue: mode,
      options: MODES.map((m) => ({ value: m.id, name: m.name, description: m.description })),
    },
  ];
  if (model) {
    const models = [model.current, ...model.models.filter((m) => m !== model.current)];
    options.push({ id: 'model', name: 'Model', category: 'model', type: 'select', currentValue: model.current, options: models.map((m) => ({ value: m, name: m })) });
  }
  return options;
}
