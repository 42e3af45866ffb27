import { checkStrategyMarkets, unlistedLines, unlistedMarketsError, venueMarkets } from '../../../src/app/market-check';
import type { FrozenConfig } from '../../../src/config/load';

const venue = [{ name: 'BTC_USDT', tradesEnabled: true }, { name: 'ETH_USDT', tradesEnabled: true }, { name: 'DOGE_USDT', tradesEnabled: false }];

test('every strategy market is checked: unlisted ones are named per strategy, listed-but-disabled ones apart', () => {
  const check = checkStrategyMarkets([
    { name: 'ok', markets: ['BTC_USDT'] },
    { name: 'sol', markets: ['BTC_USDT', 'SOL_USDT', 'XRP_USDT'] },
    { name: 'doge', markets: ['DOGE_USDT'] },
  ], venue);
  expect(check.unlisted).toEqual([{ strategy: 'sol', markets: ['SOL_USDT', 'XRP_USDT'] }]);
  expect(check.notTrading).toEqual([{ strategy: 'doge', markets: ['DOGE_USDT'] }]);
  expect(unlistedLines(check, 'paper.markets', ['ETH_USDT', 'BTC_USDT'])).toEqual([
    'strategy sol: SOL_USDT, XRP_USDT not offered by paper.markets (offered: BTC_USDT, ETH_USDT)',
  ]);
  // A venue's long list is counted, not printed; without a list nothing is claimed about it.
  expect(unlistedLines(check, 'the venue', Array.from({ length: 300 }, (_, i) => `M${i}_USDT`))[0]).toContain('(300 markets offered)');
  expect(unlistedLines(check, 'the venue')[0]).toBe('strategy sol: SOL_USDT, XRP_USDT not offered by the venue');
});

test('the daemon refuses with a config error (exit 78) naming the strategy and the markets; none when all are listed', () => {
  const err = unlistedMarketsError(checkStrategyMarkets([{ name: 'sol', markets: ['SOL_USDT'] }], venue), 'paper.markets', ['BTC_USDT']);
  expect(err?.code).toBe('TB_ERR_CONFIG');
  expect(err?.message).toBe('strategies.enabled: strategy sol: SOL_USDT not offered by paper.markets (offered: BTC_USDT)');
  expect(err?.context['markets']).toEqual(['SOL_USDT']);
  expect(unlistedMarketsError(checkStrategyMarkets([{ name: 'ok', markets: ['BTC_USDT'] }], venue), 'paper.markets')).toBeUndefined();
});

test('paper mode with the embedded simulator offers exactly paper.markets (nothing is fetched)', async () => {
  const config = { mode: 'paper', paper: { markets: [{ market: 'BTC_USDT', data: 'x.csv' }] }, exchange: {} } as unknown as FrozenConfig;
  expect(await venueMarkets(config)).toEqual({ kind: 'listed', source: 'paper.markets', markets: [{ name: 'BTC_USDT', tradesEnabled: true }] });
});
