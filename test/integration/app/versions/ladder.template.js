// Test-only strategy for reload/shadow/promote tests. __MARK__ and __FAR__ are replaced per version.
// Every candle: cancels its open "far" order and places a new one far above the market (never
// triggers), so each candle's order shows in the journal (client order id = candle time); even
// candles also buy a little (fills often: a position). Logs what it saw, with its version mark.
const { Decimal, z } = require('tradebot/strategy');

module.exports = {
  name: 'ladder',
  markets: ['BTC_USDT'],
  interval: '1m',
  warmup: 2,
  params: z.object({ amount: z.string().default('0.001') }),
  onCandle(ctx) {
    const close = ctx.candle.close;
    const out = [];
    for (const o of ctx.openOrders) if (o.clientOrderId.endsWith('-o') && o.side === 'buy' && new Decimal(o.price).greaterThan(close.times('1.03'))) out.push({ kind: 'cancel', market: ctx.market, clientOrderId: o.clientOrderId });
    out.push({
      kind: 'stop_limit', market: ctx.market, side: 'buy', amount: new Decimal('0.0002'), purpose: 'entry', tag: 'far',
      activationPrice: close.times('__FAR__').toDecimalPlaces(2), price: close.times('__FAR__').plus(1).toDecimalPlaces(2),
    });
    if (Math.floor(ctx.candle.time / 60) % 2 === 0) {
      out.push({
        kind: 'stop_limit', market: ctx.market, side: 'buy', amount: new Decimal(ctx.params.amount), purpose: 'entry',
        activationPrice: close.times('1.0002').toDecimalPlaces(2), price: close.times('1.01').toDecimalPlaces(2),
      });
    }
    ctx.log.info({ mark: '__MARK__', t: ctx.candle.time, position: ctx.position.amount.toString(), open: ctx.openOrders.length }, 'seen');
    return out;
  },
};
