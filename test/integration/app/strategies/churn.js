// Test-only strategy: trades on (almost) every candle so end-to-end tests see orders and fills fast.
// Even candles: a small BUY stop-limit just above the close (triggers and fills on a small rise).
// Odd candles, when holding stock: a SELL stop-limit just below the close.
// JavaScript (not type-checked by the repo's tsconfig); `tradebot/strategy` is the loader's alias.
const { Decimal, z } = require('tradebot/strategy');

module.exports = {
  name: 'churn',
  description: 'test-only: a small stop-limit order on every candle',
  markets: ['BTC_USDT'],
  interval: '1m',
  warmup: 2,
  params: z.object({ amount: z.string().default('0.001') }),
  onCandle(ctx) {
    const close = ctx.candle.close;
    const amount = new Decimal(ctx.params.amount);
    const buying = Math.floor(ctx.candle.time / 60) % 2 === 0;
    if (buying) {
      return [{
        kind: 'stop_limit', market: ctx.market, side: 'buy', amount, purpose: 'entry',
        activationPrice: close.times('1.0002').toDecimalPlaces(2), price: close.times('1.01').toDecimalPlaces(2),
      }];
    }
    const held = ctx.balances.BTC ? ctx.balances.BTC.available : new Decimal(0);
    if (held.lessThan(amount)) return [];
    return [{
      kind: 'stop_limit', market: ctx.market, side: 'sell', amount, purpose: 'exit',
      activationPrice: close.times('0.9998').toDecimalPlaces(2), price: close.times('0.99').toDecimalPlaces(2),
    }];
  },
};
