/**
 * RSI mean reversion, long only.
 *
 * - Entry: when RSI(period) closes below `oversold` and we are flat with nothing open, place a BUY
 *   stop-limit just above the close (the price must turn up first: activation = close x (1 +
 *   entryOffset)). Sized from `quoteAmount`. An entry that has not triggered after `entryTtl`
 *   candles is canceled.
 * - Exit: once the entry is gone from the open orders and looks filled, place a SELL OCO on the
 *   entry amount: take-profit limit at entry x (1 + takeProfit), stop-loss triggered at entry x
 *   (1 - stopLoss) with its limit `slippage` lower. When the OCO is gone, we are flat again.
 *
 * One position at a time: `ctx.state.phase` (flat -> entering -> exiting -> flat) plus
 * `ctx.openOrders` keep it from stacking orders. Deterministic.
 */
import { Decimal, defineStrategy, z, type Intent } from 'tradebot/strategy';
import { amountForNotional, decimalText, looksFilled, ratio, roundPrice } from './_sizing';

type Phase = 'flat' | 'entering' | 'exiting';

export default defineStrategy({
  name: 'rsi-reversion',
  description: 'RSI oversold entry with a stop-limit, exit with a take-profit / stop-loss OCO',
  markets: ['BTC_USDT'],
  interval: '1h',
  warmup: 15,
  params: z.object({
    period: z.number().int().min(2).default(14),
    oversold: z.number().min(1).max(50).default(30),
    quoteAmount: decimalText.default('100'),
    entryOffset: z.number().min(0).max(0.1).default(0.001),
    takeProfit: z.number().gt(0).max(1).default(0.02),
    stopLoss: z.number().gt(0).max(0.5).default(0.01),
    slippage: z.number().min(0).max(0.1).default(0.002),
    /** Candles an untriggered entry may wait before it is canceled. */
    entryTtl: z.number().int().min(1).default(12),
  }),
  initState: ({ params, indicators }) => ({
    rsi: indicators.incremental.rsi(params.period),
    quote: new Decimal(params.quoteAmount),
    phase: 'flat' as Phase,
    entry: undefined as { amount: Decimal; price: Decimal; candles: number } | undefined,
  }),
  onCandle(ctx) {
    const { params: p, state: s, candle, marketInfo } = ctx;
    const rsi = s.rsi.nextValue(ctx.candles.close(-1));
    const openBuys = ctx.openOrders.filter((o) => o.side === 'buy');
    const openSells = ctx.openOrders.filter((o) => o.side === 'sell');

    if (s.phase === 'entering' && s.entry !== undefined) {
      if (openBuys.length > 0) {
        s.entry.candles++;
        if (s.entry.candles <= p.entryTtl) return [];
        s.phase = 'flat';
        s.entry = undefined;
        return openBuys.map((o): Intent => ({ kind: 'cancel', market: ctx.market, clientOrderId: o.clientOrderId }));
      }
      if (!looksFilled(ctx, s.entry.amount)) {
        s.phase = 'flat';
        s.entry = undefined;
      } else {
        const { amount, price } = s.entry;
        const stop = roundPrice(price.times(ratio(1 - p.stopLoss)), marketInfo);
        s.phase = 'exiting';
        s.entry = undefined;
        return [{
          kind: 'oco', market: ctx.market, side: 'sell', amount, purpose: 'exit',
          price: roundPrice(price.times(ratio(1 + p.takeProfit)), marketInfo),
          activationPrice: stop,
          stopLimitPrice: roundPrice(stop.times(ratio(1 - p.slippage)), marketInfo),
        }];
      }
    }
    if (s.phase === 'exiting') {
      if (openSells.length > 0) return [];
      s.phase = 'flat';
    }
    if (rsi === undefined || rsi >= p.oversold || ctx.openOrders.length > 0) return [];
    const activation = roundPrice(candle.close.times(ratio(1 + p.entryOffset)), marketInfo);
    const amount = amountForNotional(s.quote, activation, marketInfo);
    if (amount.isZero()) return [];
    const limit = roundPrice(activation.times(ratio(1 + p.slippage)), marketInfo);
    s.phase = 'entering';
    // The fill price is unknown here; the limit is the worst case, so exits are measured from it.
    s.entry = { amount, price: limit, candles: 0 };
    return [{ kind: 'stop_limit', market: ctx.market, side: 'buy', amount, activationPrice: activation, price: limit, purpose: 'entry' }];
  },
});
