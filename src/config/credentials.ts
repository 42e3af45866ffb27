import { readFileSync } from 'node:fs';
import { ConfigError } from '../domain/errors';
import { Secret } from './secret';

/** API credentials. The key identifies the account (it is not secret, but we still keep it out of logs). */
export interface Credentials {
  readonly apiKey: string;
  readonly apiSecret: Secret;
}

/**
 * Credentials come only from the environment: TRADEBOT_API_KEY / TRADEBOT_API_SECRET, or the
 * *_FILE variants naming a file that holds the value (Kubernetes Secrets mounted as files, Docker
 * secrets). Returns undefined when neither is set and `required` is false.
 */
export function loadCredentials(env: NodeJS.ProcessEnv, options: { required: boolean }): Credentials | undefined {
  const apiKey = readEnvOrFile(env, 'TRADEBOT_API_KEY');
  const apiSecret = readEnvOrFile(env, 'TRADEBOT_API_SECRET');
  if (apiKey === undefined && apiSecret === undefined) {
    if (!options.required) return undefined;
    throw new ConfigError(
      'credentials: TRADEBOT_API_KEY and TRADEBOT_API_SECRET (or TRADEBOT_API_KEY_FILE and TRADEBOT_API_SECRET_FILE) must be set',
      { path: 'TRADEBOT_API_KEY' },
    );
  }
  if (apiKey === undefined) throw new ConfigError('credentials: TRADEBOT_API_SECRET is set but TRADEBOT_API_KEY is not', { path: 'TRADEBOT_API_KEY' });
  if (apiSecret === undefined) throw new ConfigError('credentials: TRADEBOT_API_KEY is set but TRADEBOT_API_SECRET is not', { path: 'TRADEBOT_API_SECRET' });
  return { apiKey, apiSecret: new Secret(apiSecret) };
}

/**
 * A value from `name` or from the file named by `${name}_FILE` (never both), trimmed, printable
 * ASCII, or undefined when neither is set. Also used by `tradebot sim-exchange` for its secret.
 */
export function readEnvOrFile(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const direct = env[name];
  const file = env[`${name}_FILE`];
  if (direct !== undefined && file !== undefined) {
    throw new ConfigError(`credentials: set either ${name} or ${name}_FILE, not both`, { path: name });
  }
  if (direct !== undefined) {
    const value = direct.trim();
    if (value === '') throw new ConfigError(`credentials: ${name} is empty`, { path: name });
    return printable(value, name);
  }
  return file === undefined ? undefined : readSecretFile(file, `${name}_FILE`);
}

/** The secret held in `file`, named in errors by `label` (the variable or flag that gave the path). */
export function readSecretFile(file: string, label: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    // The path is not secret; the content is never echoed.
    throw new ConfigError(`credentials: ${label} (${file}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, {
      path: label,
    });
  }
  const value = text.trim();
  if (value === '') throw new ConfigError(`credentials: the file named by ${label} is empty`, { path: label });
  return printable(value, label);
}

/**
 * A key or secret goes into an HTTP header or the HMAC: a CR, LF or any other control or non-ASCII
 * character inside it (a pasted line break, a file with two lines) would fail every request as an
 * "unauthorized" the venue never explains. Refused here, at config check; the value is never echoed.
 */
function printable(value: string, path: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) {
      const what = c === 0x0d || c === 0x0a ? 'a line break (CR/LF)' : c === 0x20 ? 'a space' : 'a control or non-ASCII character';
      throw new ConfigError(`credentials: ${path} contains ${what} at position ${i + 1}; keys and secrets are printable ASCII`, { path });
    }
  }
  return value;
}
