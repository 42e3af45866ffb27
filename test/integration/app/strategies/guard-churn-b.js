// A copy of guard-churn.js under a second name (a guest loads its own file only): two strategies share one account.
// Test-only strategy for the guardrails (docs/risk.md): losing round trips on purpose. Every candle it
// first cancels what it left open; on even candles two small BUY entries just above the close (the
// second is what a budget refuses), on odd candles the whole position sold just below it. The
// triggers lie beyond the close, so orders fill when the next candle crosses them, at their own
// prices: the same fills in a backtest and in a paper run stepped candle by candle. Fees make most
// round trips losers, so cooldowns and drawdown stops trip within a few dozen candles.
const { Decimal, z } = require('tradebot/strategy');

module.exports = {
  name: 'guard-churn-b',
  description: 'test-only: guard-churn again under a second name (two strategies on one account)',
  markets: ['BTC_USDT'],
  interval: '1m',
  warmup: 2,
  params: z.object({ amount: z.string().default('0.001') }),
  onCandle(ctx) {
    const close = ctx.candle.close;
    const amount = new Decimal(ctx.params.amount);
    const cancels = ctx.openOrders.map((o) => ({ kind: 'cancel', market: ctx.market, clientOrderId: o.clientOrderId }));
    if (Math.floor(ctx.candle.time / 60) % 2 === 0) {
      const buy = (tag) => ({
        kind: 'stop_limit', market: ctx.market, side: 'buy', amount, purpose: 'entry', tag,
        activationPrice: close.times('1.0002').toDecimalPlaces(2), price: close.times('1.01').toDecimalPlaces(2),
      });
      return [...cancels, buy('a'), buy('b')];
    }
    const held = ctx.position.amount;
    if (!held.greaterThan(0)) return cancels;
    return [...cancels, {
      kind: 'stop_limit', market: ctx.market, side: 'sell', amount: held, purpose: 'exit', tag: 'x',
      activationPrice: close.times('0.9998').toDecimalPlaces(2), price: close.times('0.99').toDecimalPlaces(2),
    }];
  },
};
