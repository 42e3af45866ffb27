/**
 * SMA crossover (trend following), long only.
 *
 * - Golden cross (fast SMA of closes crosses above the slow SMA): place a BUY stop-limit slightly
 *   ABOVE the close (activation = close x (1 + entryOffset), limit = activation x (1 + slippage)),
 *   so the entry only happens if the price keeps rising. Size: `quoteAmount` of money / activation.
 * - Death cross: cancel a still-open entry, and if we hold the position, place a SELL stop-limit
 *   slightly BELOW the close (activation = close x (1 - exitOffset), limit = activation x (1 - slippage)).
 *
 * A golden cross while the exit still rests cancels that exit (the position is kept).
 * Crosses are edges (one candle each), and `ctx.openOrders` / `ctx.state` stop it from stacking a
 * second entry while one is open or held. Deterministic: the same candles give the same intents.
 */
import { Decimal, defineStrategy, z, type Intent } from 'tradebot/strategy';
import { amountForNotional, decimalText, heldStock, ratio, roundPrice } from './_sizing';

const FILLED_SHARE = new Decimal('0.99');

/** Returned on most candles: one shared empty list instead of a new one per candle. */
const NONE: readonly Intent[] = Object.freeze([]);

/**
 * Cancel intents for these orders. A plain function rather than a closure inside onCandle: a closure
 * over `ctx` would make V8 allocate a context on EVERY call of onCandle, signal or not.
 */
function cancelAll(orders: readonly { clientOrderId: string }[], market: string): Intent[] {
  const out: Intent[] = [];
  for (const o of orders) out.push({ kind: 'cancel', market, clientOrderId: o.clientOrderId });
  return out;
}

export default defineStrategy({
  name: 'sma-cross',
  description: 'SMA crossover: stop-limit entry above the close on a golden cross, stop-limit exit below on a death cross',
  markets: ['BTC_USDT'],
  interval: '1h',
  warmup: 31,
  params: z.object({
    fast: z.number().int().min(2).default(10),
    slow: z.number().int().min(3).default(30),
    /** Money spent per entry, e.g. "100" USDT. */
    quoteAmount: decimalText.default('100'),
    entryOffset: z.number().min(0).max(0.1).default(0.001),
    exitOffset: z.number().min(0).max(0.1).default(0.001),
    /** Distance of the limit price beyond the trigger, so a fast move still fills. */
    slippage: z.number().min(0).max(0.1).default(0.002),
  }).refine((p) => p.fast < p.slow, { message: 'fast must be shorter than slow', path: ['fast'] }),
  initState: ({ params, indicators }) => ({
    fast: indicators.incremental.sma(params.fast),
    slow: indicators.incremental.sma(params.slow),
    cross: indicators.incremental.cross(),
    /** Amount of the last entry placed; undefined when flat. */
    entryAmount: undefined as Decimal | undefined,
    quote: new Decimal(params.quoteAmount),
    // The price ratios as Decimals, built once (signals are floats; Decimals only for the order itself).
    entryRatio: ratio(1 + params.entryOffset),
    exitRatio: ratio(1 - params.exitOffset),
    upSlip: ratio(1 + params.slippage),
    downSlip: ratio(1 - params.slippage),
  }),
  onCandle(ctx) {
    const { state: s, candle, marketInfo } = ctx;
    const close = ctx.candles.close(-1);
    const signal = s.cross.next(s.fast.nextValue(close), s.slow.nextValue(close));
    if (signal === undefined) return NONE;
    const openBuys = ctx.openOrders.filter((o) => o.side === 'buy');
    const openSells = ctx.openOrders.filter((o) => o.side === 'sell');

    if (signal === 'up') {
      if (openBuys.length > 0 || s.entryAmount !== undefined) return [];
      if (openSells.length > 0) {
        // The trend turned up again before the exit triggered: keep the position, drop the exit.
        s.entryAmount = openSells[0]?.amount;
        return cancelAll(openSells, ctx.market);
      }
      const activation = roundPrice(candle.close.times(s.entryRatio), marketInfo);
      const amount = amountForNotional(s.quote, activation, marketInfo);
      if (amount.isZero()) return [];
      s.entryAmount = amount;
      return [{
        kind: 'stop_limit', market: ctx.market, side: 'buy', amount, activationPrice: activation,
        price: roundPrice(activation.times(s.upSlip), marketInfo), purpose: 'entry',
      }];
    }

    // Death cross: drop an entry that has not triggered, exit a held position.
    const out = cancelAll(openBuys, ctx.market);
    const entered = s.entryAmount;
    s.entryAmount = undefined;
    if (entered === undefined || openBuys.length > 0 || openSells.length > 0) return out;
    // As _sizing's looksFilled (this strategy holds >= 99 % of the entry), with the share built once.
    const held = heldStock(ctx);
    if (held.lessThan(entered.times(FILLED_SHARE))) return out;
    const amount = held.greaterThan(entered) ? entered : held;
    const activation = roundPrice(candle.close.times(s.exitRatio), marketInfo);
    out.push({
      kind: 'stop_limit', market: ctx.market, side: 'sell', amount, activationPrice: activation,
      price: roundPrice(activation.times(s.downSlip), marketInfo), purpose: 'exit',
    });
    return out;
  },
});
