import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { ExchangeUnavailableError } from '../../../src/domain/errors';
import type { Balances } from '../../../src/domain/market';
import { BalancePoller } from '../../../src/market-data/balance-poller';

const bal = (usdt: string): Balances => ({ USDT: { available: new Decimal(usdt), freeze: new Decimal(0) } });

describe('BalancePoller', () => {
  test('keeps the latest snapshot with its time; a failure keeps the previous one', async () => {
    const clock = new ManualClock(1000);
    const answers: (Balances | Error)[] = [bal('10'), new ExchangeUnavailableError('down'), bal('12')];
    const tickers: (string | undefined)[] = [];
    const updates: string[] = [];
    const client = { fetchTradingBalances: async (t?: string) => { tickers.push(t); const a = answers.shift()!; if (a instanceof Error) throw a; return a; } };
    const poller = new BalancePoller({
      clock, fetch: () => client.fetchTradingBalances('USDT'),
      onUpdate: (s) => updates.push(s.balances['USDT']!.available.toString()),
    });
    expect(poller.latest()).toBeUndefined();
    expect(poller.ageMs()).toBe(Infinity);
    await poller.poll();
    clock.advanceMs(5000);
    await expect(poller.poll()).rejects.toBeInstanceOf(ExchangeUnavailableError);
    expect(poller.latest()).toMatchObject({ fetchedAtMs: 1000 });
    expect(poller.ageMs()).toBe(5000);
    await poller.poll();
    expect(poller.latest()!.fetchedAtMs).toBe(6000);
    expect(updates).toEqual(['10', '12']);
    expect(tickers).toEqual(['USDT', 'USDT', 'USDT']);
  });

  test('an answer to an older request never replaces a newer snapshot', async () => {
    const clock = new ManualClock(1000);
    const resolvers: ((b: Balances) => void)[] = [];
    const poller = new BalancePoller({
      clock, fetch: () => new Promise<Balances>((r) => { resolvers.push(r); }),
    });
    const slow = poller.poll();
    clock.advanceMs(1000);
    const fast = poller.poll();
    resolvers[1]!(bal('20'));
    await fast;
    resolvers[0]!(bal('5'));
    await slow;
    expect(poller.latest()!.balances['USDT']!.available.toString()).toBe('20');
    expect(poller.latest()!.fetchedAtMs).toBe(2000);
  });
});
