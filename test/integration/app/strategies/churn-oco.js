// Test-only strategy: a small protective SELL OCO every third candle, so crash tests see OCOs placed,
// answered (or not), filled and settled while the daemon is killed: take-profit just above the close,
// stop-loss just below it. JavaScript (not type-checked by the repo's tsconfig).
const { Decimal, z } = require('tradebot/strategy');

module.exports = {
  name: 'churn-oco',
  description: 'test-only: a small OCO every third candle',
  markets: ['BTC_USDT'],
  interval: '1m',
  warmup: 2,
  params: z.object({ amount: z.string().default('0.001') }),
  onCandle(ctx) {
    if (Math.floor(ctx.candle.time / 60) % 3 !== 0) return [];
    const close = ctx.candle.close;
    return [{
      kind: 'oco', market: ctx.market, side: 'sell', amount: new Decimal(ctx.params.amount), purpose: 'exit',
      price: close.times('1.003').toDecimalPlaces(2),
      activationPrice: close.times('0.997').toDecimalPlaces(2), stopLimitPrice: close.times('0.996').toDecimalPlaces(2),
    }];
  },
};
