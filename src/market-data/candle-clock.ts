import { candleOpenTime, intervalSeconds, nextCandleOpenTime, type Interval } from '../domain/candle';
import { ConfigError } from '../domain/errors';

/**
 * When candles close, and when to poll for them. All open/close times are Unix seconds (as on the
 * wire); instants on a clock are Unix ms. A candle opening at `t` closes at nextCandleOpenTime(t):
 * calendar months and Monday-based weeks come from domain/candle.ts.
 */

/** The exchange caches kline answers for 1 s: polling 1.5 s after a close sees the closed candle. */
export const DEFAULT_POLL_DELAY_MS = 1500;

/** Close time (Unix s) of the candle opening at `openTime`. */
export function candleCloseTime(interval: Interval, openTime: number): number {
  return nextCandleOpenTime(interval, openTime);
}

/** Open time of the candle before the one opening at `openTime`. */
export function previousCandleOpenTime(interval: Interval, openTime: number): number {
  return candleOpenTime(interval, openTime - 1);
}

/** Open time `steps` candles after (or, negative, before) `openTime`. */
export function addCandleSteps(interval: Interval, openTime: number, steps: number): number {
  if (interval === '1M') {
    const d = new Date(openTime * 1000);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + steps, 1) / 1000;
  }
  return openTime + steps * intervalSeconds(interval);
}

/** Number of candle steps from `fromOpen` to `toOpen` (both open times; negative if to < from). */
export function candleSteps(interval: Interval, fromOpen: number, toOpen: number): number {
  if (interval === '1M') {
    const a = new Date(fromOpen * 1000);
    const b = new Date(toOpen * 1000);
    return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth());
  }
  return Math.round((toOpen - fromOpen) / intervalSeconds(interval));
}

/** A row is closed once its close time is not after the exchange's now. */
export function isCandleClosed(interval: Interval, openTime: number, nowMs: number): boolean {
  return candleCloseTime(interval, openTime) * 1000 <= nowMs;
}

/** Open time of the newest candle that is closed at `nowMs`. */
export function lastClosedCandleOpenTime(interval: Interval, nowMs: number): number {
  const currentOpen = candleOpenTime(interval, Math.floor(nowMs / 1000));
  return previousCandleOpenTime(interval, currentOpen);
}

function checkPollDelay(pollDelayMs: number): void {
  // Past one minute the delay would reach into the next 1m candle and the cron mapping breaks.
  if (!Number.isInteger(pollDelayMs) || pollDelayMs < 0 || pollDelayMs >= 60_000) {
    throw new ConfigError(`poll delay must be an integer number of ms in [0, 60000), got ${pollDelayMs}`, {
      path: 'marketData.pollDelayMs',
    });
  }
}

/** The first poll instant strictly after `nowMs`: a candle close plus `pollDelayMs`. */
export function nextPollAtMs(interval: Interval, nowMs: number, pollDelayMs: number = DEFAULT_POLL_DELAY_MS): number {
  checkPollDelay(pollDelayMs);
  // The candle that opened at `currentOpen` is the one whose close (= currentOpen) we may still be
  // within the delay of; otherwise the next close is the end of the current candle.
  const currentOpen = candleOpenTime(interval, Math.floor(nowMs / 1000));
  const justClosedPoll = currentOpen * 1000 + pollDelayMs;
  if (justClosedPoll > nowMs) return justClosedPoll;
  return candleCloseTime(interval, currentOpen) * 1000 + pollDelayMs;
}

/**
 * node-cron (6-field, seconds first, evaluated in UTC) expression firing at each close of `interval`
 * plus the delay rounded up to whole seconds (cron ticks on whole seconds). `exact` is false when
 * cron cannot express the interval (3d is aligned to the epoch, not to the calendar): the expression
 * then fires daily, a superset of the closes, which is harmless because a poll with no newly closed
 * candle delivers nothing.
 */
export function candleCloseCronExpression(
  interval: Interval,
  pollDelayMs: number = DEFAULT_POLL_DELAY_MS,
): { readonly expression: string; readonly exact: boolean } {
  checkPollDelay(pollDelayMs);
  const s = Math.ceil(pollDelayMs / 1000);
  if (s > 59) throw new ConfigError('poll delay rounds up to 60 s', { path: 'marketData.pollDelayMs' });
  switch (interval) {
    case '1m': return { expression: `${s} * * * * *`, exact: true };
    case '3m': case '5m': case '15m': case '30m':
      return { expression: `${s} */${parseInt(interval, 10)} * * * *`, exact: true };
    case '1h': return { expression: `${s} 0 * * * *`, exact: true };
    case '2h': case '4h': case '6h': case '8h': case '12h':
      return { expression: `${s} 0 */${parseInt(interval, 10)} * * *`, exact: true };
    case '1d': return { expression: `${s} 0 0 * * *`, exact: true };
    case '3d': return { expression: `${s} 0 0 * * *`, exact: false };
    case '1w': return { expression: `${s} 0 0 * * 1`, exact: true };
    case '1M': return { expression: `${s} 0 0 1 * *`, exact: true };
  }
}
