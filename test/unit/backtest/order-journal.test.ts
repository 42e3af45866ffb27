import { ManualClock } from '../../../src/core/clock';
import { Decimal } from '../../../src/domain/decimal';
import { OrderJournal } from '../../../src/backtest/replay/order-journal';
import { SimEngine } from '../../../src/simulator/engine/sim-engine';
import { simMarketInfo } from '../../../src/simulator/sim-markets';
import type { OpenOrderView } from '../../../src/risk/open-order-view';

const D = (v: string) => new Decimal(v);
const M = 'BTC_USDT';
const T0 = 1_700_000_040;

test('the backtest journal shows the amount still open after partial fills, as the daemon book does (OCO: the leg still executing)', () => {
  const engine = new SimEngine({ clock: new ManualClock(T0 * 1000), markets: [simMarketInfo(M)], ocoLegIds: 'echo' });
  engine.openAccount('bt', { trading: { USDT: '10000', BTC: '1' }, collateral: { USDT: '10000' } });
  engine.setLastPrice(M, D('100'));
  const journal = new OrderJournal();
  engine.onEvent((e) => journal.refresh(e.order.clientOrderId));
  const view = (clientOrderId: string, kind: OpenOrderView['kind']): OpenOrderView => ({
    clientOrderId, strategy: 's', market: M, side: 'sell', kind, amount: D('0.5'), price: D('105'),
  });
  journal.addOrder(view('limit-1', 'stop_limit'), engine.placeLimit('bt', { market: M, side: 'sell', amount: D('0.5'), price: D('105'), clientOrderId: 'limit-1' }));
  journal.addOco(view('oco-1', 'oco'), engine.placeOco('bt', {
    market: M, side: 'sell', amount: D('0.5'), price: D('105'), activationPrice: D('95'), stopLimitPrice: D('94'), clientOrderId: 'oco-1',
  }));
  // 3 BTC traded: 0.3 may fill, all of it to the older limit order; the OCO's take-profit gets nothing yet.
  engine.applyCandle(M, { time: T0, open: D('100'), high: D('106'), low: D('100'), close: D('105.5'), volume: D('3') }, 60);
  expect(journal.openOf('s', M).map((v) => [v.clientOrderId, v.amount.toString()])).toEqual([['limit-1', '0.2'], ['oco-1', '0.5']]);
  // Next candle opens at 105.5, beyond both: 0.2 finishes the limit, 0.1 goes to the take-profit, which cancels the stop-loss.
  engine.applyCandle(M, { time: T0 + 60, open: D('105.5'), high: D('105.5'), low: D('105.2'), close: D('105.3'), volume: D('3') }, 60);
  expect(journal.openOf('s', M).map((v) => [v.clientOrderId, v.amount.toString()])).toEqual([['oco-1', '0.4']]);
  expect(journal.status('limit-1', 's', M)).toBe('final');
});
