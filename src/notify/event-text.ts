import type { DaemonEvent } from '../domain/daemon-event';

/**
 * The human line of each notified event: what happened, to what, and what to do, readable on a
 * phone's lock screen at 3 a.m. Free text from elsewhere (reasons, drift details) is cut to a bound,
 * so one long reason cannot push the rest of the message out of a chat's limit.
 */
const MAX_FREE_TEXT = 300;

const STATE_WORDS: Readonly<Record<string, string>> = { active: 'ACTIVE', halted: 'HALTED', reducing: 'REDUCE-ONLY' };

export function clip(text: string, max = MAX_FREE_TEXT): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function stateWord(state: string): string {
  return STATE_WORDS[state] ?? state.toUpperCase();
}

/** Unix seconds as `2026-11-28 10:00 UTC` (drift windows are whole minutes). */
function utcMinute(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `+12.5` for a gain (a loss has its sign already); zero and non-numbers (`unavailable`) as they are. */
function signed(amount: string): string {
  return /^\d*\.?\d+$/.test(amount) && /[1-9]/.test(amount) ? `+${amount}` : amount;
}

/** The line for a notified event; undefined for events nobody is told about (order moves, candles). */
export function eventText(event: DaemonEvent): string | undefined {
  switch (event.type) {
    case 'fill':
      return `${event.market} ${event.strategy}: ${event.side === 'buy' ? 'bought' : 'sold'} ${event.amount} at ${event.price} (fee ${event.fee})`;
    case 'rejection':
      return `Order ${event.clientOrderId} REJECTED: ${clip(event.reason)}${event.code === undefined ? '' : ` (${clip(event.code, 40)})`}`;
    case 'trading_state':
      return `Trading ${stateWord(event.state)} (was ${event.previous}): ${clip(event.reason)}`;
    case 'strategy_paused':
      return `Strategy ${event.strategy} PAUSED after ${event.consecutiveFailures} failures in a row: ${clip(event.reason)}. `
        + `It sends no orders until \`tradebot strategy-resume ${event.strategy}\`.`;
    case 'guardrail':
      return event.state === 'tripped'
        ? `Guardrail ${event.guard} TRIPPED (${event.action === 'halt' ? 'every order but cancels stopped' : 'no new entries'}): ${clip(event.reason)}. `
          + (event.untilMs === undefined ? `Stays until ${event.scope === 'account' ? '`tradebot resume`' : `\`tradebot strategy-resume ${event.scope.split('|')[0] ?? event.scope}\``}.` : `Lifts by itself at ${utcMinute(Math.floor(event.untilMs / 1000))}.`)
        : `Guardrail ${event.guard} on ${event.scope} lifted (${event.by === 'operator' ? 'by an operator' : 'its time passed'}): ${clip(event.reason)}`;
    case 'version_changed': {
      const what = event.by === 'rollback' ? 'rolled back' : event.by === 'auto-promote' ? 'promoted automatically (clean shadow run)' : 'promoted';
      return `Strategy ${event.strategy} ${what}: version ${event.to} is live (was ${event.from})`;
    }
    case 'drift': {
      const first = event.first.slice(0, 3).map((line) => `\n- ${clip(line, 200)}`).join('');
      return `DRIFT: ${event.unexplained} unexplained difference${event.unexplained === 1 ? '' : 's'} between live and its backtest `
        + `(allowed ${event.allowed}), ${utcMinute(event.from)} to ${utcMinute(event.to)}.${first}\nReport: tradebot drift --from ${event.from} --to ${event.to} --out reports/drift`;
    }
    case 'daily_summary':
      return `Daily summary ${event.day} (UTC, so far): realised PnL ${signed(event.realizedPnl)}, ${event.fills} fill${event.fills === 1 ? '' : 's'}`;
    case 'order':
    case 'candle':
      return undefined;
    default:
      return undefined;
  }
}

/** The coalesced message for events held back by the rate limit, e.g. `12 more notifications ... : 10 fill, 2 rejection`. */
export function suppressedText(counts: ReadonlyMap<string, number>, maxPerMinute: number): string {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const byType = [...counts].sort((a, b) => b[1] - a[1]).map(([type, n]) => `${n} ${type}`).join(', ');
  return `${total} more notification${total === 1 ? '' : 's'} suppressed (over ${maxPerMinute} per minute on this channel): ${byType}. `
    + 'The daemon\'s log has each one.';
}

/** Every message starts with the deployment's label, so several deployments can share one chat. */
export function labelled(label: string, text: string): string {
  return `[${label}] ${text}`;
}
