import { BacktestReplay } from '../../../src/backtest/replay/backtest-replay';
import { simMarketInfo } from '../../../src/simulator/sim-markets';
import { prepareStrategy } from '../../../src/strategy/prepare-strategy';
import { defineStrategy, z } from '../../../src/strategy/strategy';

test('a 5m strategy given 1h data is refused with what to do: --interval 1h, or 5m data', () => {
  const strategy = prepareStrategy(defineStrategy({ name: 'fast', markets: ['BTC_USDT'], interval: '5m', warmup: 0, params: z.object({}), onCandle: () => [] }));
  const build = () => new BacktestReplay({ strategies: [strategy], markets: [{ info: simMarketInfo('BTC_USDT'), candles: [] }], dataInterval: '1h', balances: {} });
  expect(build).toThrow('strategy fast runs on 5m candles, finer than the data (1h): candles are aggregated into coarser ones, never split.');
  expect(build).toThrow("Run it on the data's interval with --interval 1h (or a coarser one), or give it 5m data (or finer), e.g. tradebot download --interval 5m");
});
