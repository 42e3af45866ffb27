import { Decimal } from '../../../src/domain/decimal';
import { loadCsvRows, rowToCandle } from '../../../src/candle-files/csv-candles';
import { backtestTrailer, legOverlaps, TRAIL_CSV } from './trailing-run';

/**
 * A trailing stop in a backtest on real recorded candles (BTC_USDT 1m, a climb on 2021-10-15): the
 * stop moves at the candles its arithmetic says (each new high that lifts the trigger by >= step),
 * one leg per move in the order log, never two legs resting at the venue (the simulator's engine),
 * and a cancel by the id the strategy sees ends it.
 */
const FROM = 1634264280 - 5 * 60;
const PLACE_AT = 1634264280;
const TO = PLACE_AT + 45 * 60;
const TRAIL = new Decimal('600');
const STEP = new Decimal('50');

/** The moves as the spec says, computed here from the candles alone (sell stop: highs lift it). */
async function expectedMoves(): Promise<{ candleTime: number; trigger: string }[]> {
  const candles = (await loadCsvRows(TRAIL_CSV)).map(rowToCandle).filter((c) => c.time >= PLACE_AT && c.time < TO);
  let best = candles[0]!.close;
  let trigger = best.minus(TRAIL);
  const out = [{ candleTime: candles[0]!.time, trigger: trigger.toString() }];
  for (const c of candles.slice(1)) {
    // Stop once the price comes down to the trigger: the leg then triggers and the trailing ends.
    if (c.low.lessThanOrEqualTo(trigger)) break;
    best = Decimal.max(best, c.high);
    const t = best.minus(TRAIL);
    if (t.minus(trigger).greaterThanOrEqualTo(STEP)) {
      trigger = t;
      out.push({ candleTime: c.time, trigger: t.toString() });
    }
  }
  return out;
}

test('the stop moves at the candles its arithmetic says, one leg per move, never two legs resting', async () => {
  const run = await backtestTrailer({ from: FROM, to: TO, params: { placeAt: PLACE_AT } });
  const expected = await expectedMoves();
  expect(expected.length).toBeGreaterThan(5);
  // Leg 0 from the intent (logged at its candle's close), then one entry per move at the close of the candle that moved it.
  const placed = run.result.orders.filter((e) => e.kind === 'trailing_stop' && e.outcome === 'placed');
  expect(placed.map((e) => ({ candleTime: e.time - 60, trigger: e.activationPrice!.toString() }))).toEqual(expected.slice(0, placed.length));
  expect(placed.length).toBe(expected.length);
  const ids = placed.map((e) => e.clientOrderId!);
  expect(new Set(ids).size).toBe(ids.length);
  // The venue: each leg created only after the one before it had ended; at most one rests now.
  const history = [...run.engine.orderHistory('backtest'), ...run.engine.activeOrders('backtest')];
  expect(legOverlaps(history, ids)).toEqual([]);
  expect(run.engine.activeOrders('backtest').filter((o) => ids.includes(o.clientOrderId)).length).toBeLessThanOrEqual(1);
  // What the strategy saw: one leg at most on every candle, the newest once a move was made.
  expect(run.seen.filter((s) => s.open.length > 1)).toEqual([]);
  for (const [i, e] of placed.entries()) {
    if (i === 0) continue;
    const after = run.seen.find((s) => s.candleTime === e.time - 60);
    expect(after?.open).toEqual([`${e.clientOrderId}@${e.activationPrice!.toString()}`]);
  }
});

test('a cancel by the id the strategy sees ends the trailing stop: its leg cancelled, no further moves', async () => {
  const cancelAt = PLACE_AT + 10 * 60;
  const run = await backtestTrailer({ from: FROM, to: TO, params: { placeAt: PLACE_AT, cancelAt } });
  const placed = run.legs;
  expect(placed.length).toBeGreaterThan(1);
  // A move on the cancel candle itself comes before the strategy decides (it then cancels the new leg it sees).
  expect(placed.every((e) => e.time - 60 <= cancelAt)).toBe(true);
  const cancel = run.result.orders.find((e) => e.kind === 'cancel');
  expect(cancel).toMatchObject({ outcome: 'canceled', clientOrderId: placed[placed.length - 1]!.clientOrderId });
  expect(run.engine.activeOrders('backtest')).toEqual([]);
  // The strategy is told its leg was cancelled and sees nothing resting afterwards.
  const later = run.seen.filter((s) => s.candleTime > cancelAt);
  expect(later[0]!.events).toContain('cancelled');
  expect(later.every((s) => s.open.length === 0)).toBe(true);
});
