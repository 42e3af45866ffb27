// Test-only strategy for the guardrails (docs/risk.md): on even candles, two small BUY entries whose
// trigger the price has already passed (they fill at once) (the second one is what a budget refuses); on odd candles, the whole position sold
// the same way. Fees make most round trips losers: cooldowns and drawdown stops trip soon.
const { Decimal, z } = require('tradebot/strategy');

module.exports = {
  name: 'guard-churn',
  description: 'test-only: losing round trips on purpose, two entries per even candle',
  markets: ['BTC_USDT'],
  interval: '1m',
  warmup: 2,
  params: z.object({ amount: z.string().default('0.001') }),
  onCandle(ctx) {
    const close = ctx.candle.close;
    const amount = new Decimal(ctx.params.amount);
    if (Math.floor(ctx.candle.time / 60) % 2 === 0) {
      const buy = (tag) => ({
        kind: 'stop_limit', market: ctx.market, side: 'buy', amount, purpose: 'entry', tag,
        activationPrice: close.times('0.9995').toDecimalPlaces(2), price: close.times('1.01').toDecimalPlaces(2),
      });
      return [buy('a'), buy('b')];
    }
    const held = ctx.position.amount;
    if (!held.greaterThan(0)) return [];
    return [{
      kind: 'stop_limit', market: ctx.market, side: 'sell', amount: held, purpose: 'exit',
      activationPrice: close.times('1.0005').toDecimalPlaces(2), price: close.times('0.99').toDecimalPlaces(2),
    }];
  },
};
