/**
 * Donchian channel breakout (turtle style), long only.
 *
 * The channel is the highest high and lowest low of the last N closed candles (this one included).
 * - Flat: when the close is within `armDistance` of the upper edge, rest a BUY stop-limit AT the
 *   upper edge (limit `slippage` above): it fills only on a real breakout. Sized from `quoteAmount`.
 *   If the edge later moves by more than `reprice`, the resting entry is canceled and re-placed;
 *   if the close falls back further than 2 x armDistance below the edge, it is canceled.
 * - Long (the entry left the open orders and looks filled): rest a SELL stop-limit at the lower
 *   edge of the shorter exit channel, trailed upwards (cancel + replace) when that edge rises by
 *   more than `reprice`. When the exit is gone, we are flat again.
 *
 * At most one resting order at a time (checked against `ctx.openOrders`), so it never piles up orders.
 */
import { Decimal, defineStrategy, z, type Intent, type OpenOrderView } from 'tradebot/strategy';
import { amountForNotional, decimalText, looksFilled, ratio, roundPrice } from './_sizing';

export default defineStrategy({
  name: 'donchian-breakout',
  description: 'Donchian channel breakout with stop-limit orders at the channel edges',
  markets: ['BTC_USDT'],
  interval: '1h',
  warmup: 20,
  params: z.object({
    entryPeriod: z.number().int().min(2).default(20),
    exitPeriod: z.number().int().min(2).default(10),
    quoteAmount: decimalText.default('100'),
    armDistance: z.number().gt(0).max(0.5).default(0.01),
    reprice: z.number().min(0).max(0.5).default(0.005),
    slippage: z.number().min(0).max(0.1).default(0.002),
  }),
  initState: ({ params, indicators }) => ({
    upper: indicators.incremental.highest(params.entryPeriod),
    lower: indicators.incremental.lowest(params.exitPeriod),
    quote: new Decimal(params.quoteAmount),
    /** Amount of the entry placed or held; undefined when flat. */
    position: undefined as { amount: Decimal; held: boolean; exitPlaced: boolean } | undefined,
  }),
  onCandle(ctx) {
    const { params: p, state: s, marketInfo } = ctx;
    const upper = s.upper.nextValue(ctx.candles.high(-1));
    const lower = s.lower.nextValue(ctx.candles.low(-1));
    const close = ctx.candles.close(-1);
    if (upper === undefined || lower === undefined) return [];
    const cancel = (o: OpenOrderView): Intent => ({ kind: 'cancel', market: ctx.market, clientOrderId: o.clientOrderId });
    const moved = (o: OpenOrderView, edge: number): boolean =>
      Math.abs((o.activationPrice ?? o.price).toNumber() / edge - 1) > p.reprice;

    const entry = ctx.openOrders.find((o) => o.side === 'buy');
    const exit = ctx.openOrders.find((o) => o.side === 'sell');
    if (s.position !== undefined && !s.position.held && entry === undefined) {
      // The resting entry left the book: filled (go long) or canceled elsewhere (flat).
      if (looksFilled(ctx, s.position.amount)) s.position.held = true;
      else s.position = undefined;
    }

    if (s.position?.held === true) {
      if (exit !== undefined && !moved(exit, lower)) return [];
      if (exit === undefined && s.position.exitPlaced) {
        s.position = undefined; // the exit filled
        return [];
      }
      const stop = roundPrice(new Decimal(String(lower)), marketInfo);
      s.position.exitPlaced = true;
      return [
        ...(exit === undefined ? [] : [cancel(exit)]),
        { kind: 'stop_limit', market: ctx.market, side: 'sell', amount: s.position.amount, activationPrice: stop,
          price: roundPrice(stop.times(ratio(1 - p.slippage)), marketInfo), purpose: 'exit' },
      ];
    }

    const armed = close >= upper * (1 - p.armDistance);
    if (entry !== undefined) {
      if (close < upper * (1 - 2 * p.armDistance)) {
        s.position = undefined;
        return [cancel(entry)];
      }
      if (!moved(entry, upper)) return [];
    } else if (!armed) {
      return [];
    }
    const activation = roundPrice(new Decimal(String(upper)), marketInfo);
    const amount = amountForNotional(s.quote, activation, marketInfo);
    if (amount.isZero()) return entry === undefined ? [] : [cancel(entry)];
    s.position = { amount, held: false, exitPlaced: false };
    return [
      ...(entry === undefined ? [] : [cancel(entry)]),
      { kind: 'stop_limit', market: ctx.market, side: 'buy', amount, activationPrice: activation,
        price: roundPrice(activation.times(ratio(1 + p.slippage)), marketInfo), purpose: 'entry' },
    ];
  },
});
