import { ExchangeRejectedError, TradebotError } from '../domain/errors';

/**
 * What every command shares: the default config file and how an error is printed. Kept apart from
 * the commands themselves so that a short command (`pause`, `shadow`, `orders`) does not load the
 * daemon (run) or the signed-request tool (api) just for these two.
 */
export function defaultConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  return env['TRADEBOT_CONFIG'] ?? 'config/paper.yaml';
}

/** A TradebotError as `CODE Name: message` with the venue's status and field errors; anything else as `error: message`. */
export function formatError(err: unknown): string {
  if (!(err instanceof TradebotError)) return `error: ${err instanceof Error ? err.message : String(err)}\n`;
  const lines = [`${err.code} ${err.name}: ${err.message}`];
  if (err instanceof ExchangeRejectedError) {
    if (err.httpStatus !== undefined) lines.push(`  http status: ${err.httpStatus}`);
    if (err.venueCode !== undefined) lines.push(`  venue code: ${err.venueCode}`);
  }
  const fieldErrors = (err as { fieldErrors?: Readonly<Record<string, readonly string[]>> }).fieldErrors ??
    (err.context['fieldErrors'] as Readonly<Record<string, readonly string[]>> | undefined) ?? {};
  for (const [field, messages] of Object.entries(fieldErrors)) lines.push(`  ${field}: ${messages.join(' ')}`);
  return `${lines.join('\n')}\n`;
}
