import { InvalidArgumentError } from '../errors';

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | true>;
}

/** Small, strict argv parser: unknown flags are errors, so typos never pass silently. */
export function parseArgs(argv: string[], spec: Record<string, 'string' | 'boolean'>): ParsedArgs {
  const positionals: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const kind = spec[name];
    if (!kind) throw new InvalidArgumentError(`Unknown option --${name}`);
    if (kind === 'boolean') {
      flags[name] = true;
      continue;
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new InvalidArgumentError(`--${name} needs a value`);
    flags[name] = value;
  }
  return { positionals, flags };
}

export function parsePort(value: string | true | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError(`--port must be 0-65535, got ${String(value)}`);
  return port;
}
