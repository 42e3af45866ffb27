import { ManualClock } from '../../../src/core/clock';
import { ExchangeUnavailableError } from '../../../src/domain/errors';
import { KillSwitchRefresher } from '../../../src/execution/guards/kill-switch-refresher';

const log = { info: jest.fn(), warn: jest.fn(), error: jest.fn() };

function manager(health: () => string | undefined, fail: Set<string> = new Set()) {
  const calls: { market: string; timeoutSeconds: number | null }[] = [];
  const refreshed: string[] = [];
  const m = new KillSwitchRefresher({
    exchange: {
      setKillSwitch: async (r) => {
        calls.push({ market: r.market, timeoutSeconds: r.timeoutSeconds });
        if (fail.has(r.market)) throw new ExchangeUnavailableError('down');
        return { market: r.market, startTime: 0, cancellationTime: 60, types: ['spot'] };
      },
    },
    markets: ['BTC_USDT', 'ETH_USDT'], timeoutSeconds: 60, clock: new ManualClock(5000), health, log,
    onRefresh: (market) => refreshed.push(market),
  });
  return { m, calls, refreshed };
}

test('healthy: every market re-armed with the timeout', async () => {
  const { m, calls, refreshed } = manager(() => undefined);
  expect(await m.refresh()).toEqual({ refreshed: ['BTC_USDT', 'ETH_USDT'], failed: [] });
  expect(calls).toEqual([{ market: 'BTC_USDT', timeoutSeconds: 60 }, { market: 'ETH_USDT', timeoutSeconds: 60 }]);
  expect(refreshed).toEqual(['BTC_USDT', 'ETH_USDT']);
});

test('unhealthy: nothing is sent (the exchange timer runs out), the reason is logged once', async () => {
  let reason: string | undefined = 'trading halted';
  const { m, calls } = manager(() => reason);
  log.warn.mockClear();
  expect((await m.refresh()).skipped).toBe('trading halted');
  await m.refresh();
  expect(calls).toEqual([]);
  expect(log.warn).toHaveBeenCalledTimes(1);
  reason = undefined;
  expect((await m.refresh()).refreshed).toHaveLength(2);
});

test('one market failing does not stop the others', async () => {
  const { m } = manager(() => undefined, new Set(['BTC_USDT']));
  expect(await m.refresh()).toEqual({ refreshed: ['ETH_USDT'], failed: ['BTC_USDT'] });
});
