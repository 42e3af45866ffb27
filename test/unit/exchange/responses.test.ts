import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Decimal } from '../../../src/domain/decimal';
import type { EndpointId } from '../../../src/exchange/wire/endpoints';
import { answerSchema } from '../../../src/exchange/wire/answers';
import { DIALECTS, type DialectName } from '../../../src/exchange/wire/dialects';

const fixture = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, '../../fixtures', `${name}.json`), 'utf8'));
function parse(endpoint: EndpointId, body: unknown, dialect: DialectName = 'venue'): any {
  const r = answerSchema(DIALECTS[dialect], endpoint).safeParse(body);
  if (!r.success) throw new Error(JSON.stringify(r.error.issues));
  return r.data;
}
const refused = (endpoint: EndpointId, body: unknown, dialect: DialectName): boolean => !answerSchema(DIALECTS[dialect], endpoint).safeParse(body).success;
const d = (s: string) => new Decimal(s);

describe('the collateral account and transfers (documented spelling in both dialects)', () => {
  test.each(['venue', 'spec'] as const)('collateral balance (JSON numbers), balance summary, transfer (%s)', (dialect) => {
    const totals = parse('collateralBalance', fixture('venue/http_post_collateral_account_balance'), dialect);
    expect(Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, (v as Decimal).toString()]))).toEqual({ BTC: '1', USDT: '1000', ETH: '5.5' });
    const summary = parse('collateralBalanceSummary', fixture('venue/http_post_collateral_account_balance_summary'), dialect);
    expect(summary['USDT'].availableWithoutBorrow).toEqual(d('1000'));
    expect(summary['BTC'].availableWithBorrow).toEqual(d('123.456'));
    expect(parse('transfer', [], dialect)).toBeUndefined();
    expect(refused('transfer', [{ id: 1 }], dialect)).toBe(true);
    expect(refused('collateralBalanceSummary', [{ asset: 'BTC', balance: '1' }], dialect)).toBe(true);
  });
});

describe('answers shared by both dialects', () => {
  test('kline: wire row is time, open, CLOSE, HIGH, LOW, volume stock, volume money', () => {
    const [c] = parse('kline', fixture('http_get_kline'));
    expect(c.time).toBe(1710324000);
    expect(c.open).toEqual(d('73306.55'));
    expect(c.close).toEqual(d('73260.84'));
    expect(c.high).toEqual(d('73392.67'));
    expect(c.low).toEqual(d('73121.22'));
    expect(c.volume).toEqual(d('197.740208'));
    expect(c.volumeMoney.toString()).toBe('14485050.86832617');
    expect(c.open).toBeInstanceOf(Decimal);
  });
  test('ping and time (seconds or milliseconds)', () => {
    expect(parse('ping', fixture('http_get_ping'))).toBe(true);
    expect(parse('time', fixture('http_get_time'))).toBe(1631451591000);
    expect(parse('time', { time: 1635467280514 })).toBe(1635467280514);
  });
  test('markets: precisions as numbers, fees percent -> ratio', () => {
    const [m] = parse('markets', fixture('http_get_markets'));
    expect(m).toMatchObject({ name: 'SON_USD', stock: 'SON', money: 'USD', stockPrec: 3, moneyPrec: 2, feePrec: 4, tradesEnabled: true, isCollateral: true, type: 'spot' });
    expect(m.makerFee).toEqual(d('0.001'));
    expect(m.takerFee).toEqual(d('0.001'));
    expect(m.maxTotal).toEqual(d('10000000000'));
  });
  test.each(['venue', 'spec'] as const)('balances (%s)', (dialect) => {
    const t = parse('tradeBalance', fixture('http_post_trade_account_balance'), dialect);
    expect(t['USDT'].available).toEqual(d('1000.5'));
    expect(t['USDT'].freeze).toEqual(d('12.25'));
    expect(parse('tradeBalance', fixture('venue/http_post_trade_account_balance'), dialect)['USDT'].freeze).toEqual(d('100'));
    const m = parse('mainBalance', fixture('http_post_main_account_balance'), dialect);
    expect(m['BTC']).toEqual(d('0.0001'));
  });
  test('order history keyed by market; ctime, ftime, operator activation condition, trigger timestamp', () => {
    const [a, b] = parse('orderHistory', fixture('http_post_trade_account_order_history'));
    expect(a).toMatchObject({ orderId: 4986126152, market: 'BTC_USDT', clientOrderId: 'customId11', timestamp: 1597486960.311311, finishedAt: 1597486960.311332, status: 'CANCELED' });
    expect(a.left).toEqual(d('0'));
    expect(b).toMatchObject({ activationCondition: 'gte', activated: true, clientOrderId: undefined });
  });
  test('a history row has no `left`: the rest is amount - dealStock (partly filled, then cancelled)', () => {
    const row = { ...(fixture('http_post_trade_account_order_history') as Record<string, Record<string, unknown>[]>)['BTC_USDT']![0]!, amount: '0.5', dealStock: '0.2' };
    const [partial] = parse('orderHistory', { BTC_USDT: [row] });
    expect([partial.status, partial.left.toString(), partial.dealStock.toString()]).toEqual(['CANCELED', '0.3', '0.2']);
  });
  test('executed deals (array or keyed by market)', () => {
    const [deal] = parse('executedDeals', fixture('http_post_trade_account_executed_history'));
    expect(deal).toMatchObject({ id: 1343815269, orderId: 58166729555, side: 'sell', role: 'taker', clientOrderId: undefined });
    expect(deal.fee).toEqual(d('0.009981007'));
    const keyed = parse('executedDeals', { ETH_USDT: fixture('http_post_trade_account_executed_history') });
    expect(keyed[0].market).toBe('ETH_USDT');
  });
  test('kill-switch set, delete, status', () => {
    expect(parse('killSwitch', fixture('http_post_order_kill_switch'))).toEqual({ market: 'BTC_USDT', startTime: 1686127243, cancellationTime: 1686127343, types: ['spot', 'margin'] });
    expect(parse('killSwitch', fixture('http_post_order_kill_switch_delete'))).toBeNull();
    expect(parse('killSwitchStatus', fixture('http_post_order_kill_switch_status'))[0].types).toBeNull();
  });
  test('codes, mining accounts, JWT, websocket token', () => {
    const codes = parse('codes', fixture('http_post_main_account_codes_my'));
    expect(codes).toMatchObject({ total: 1, limit: 30, offset: 0 });
    expect(codes.data[0]).toMatchObject({ status: 'Activated', ticker: 'USDT', date: 1594297865 });
    expect(codes.data[0].amount).toEqual(d('100'));
    expect(parse('miningAccounts', fixture('http_post_mining_accounts'))).toEqual({ data: [{ name: 'main', createdAt: 1601047200 }], limit: 100, offset: 0 });
    expect(parse('jwt', fixture('http_post_jwt'))).toEqual({ token: 'eyJhbGciOiJIUzI1NiJ9.e30.sig', expiresAt: 1700000000 });
    expect(parse('websocketToken', fixture('http_post_profile_websocket_token'))).toBe('866f14a1-b7d6-4e4b-a4dc-4bb8a4d2f1f0');
  });
  test('wrong shapes and bad decimals are refused', () => {
    const venue = (endpoint: EndpointId) => answerSchema(DIALECTS.venue, endpoint);
    expect(venue('kline').safeParse({ success: true, message: null, result: [[1, 'x', '1', '1', '1', '1', '1']] }).success).toBe(false);
    expect(venue('tradeBalance').safeParse({ BTC: { available: '-1', freeze: '0' } }).success).toBe(false);
    expect(venue('stopLimit').safeParse({ orderId: 1 }).success).toBe(false);
    expect(venue('time').safeParse({ time: 'now' }).success).toBe(false);
    expect(venue('websocketToken').safeParse({ websocketToken: 'x' }).success).toBe(false); // only the documented spelling
  });
});

describe('venue dialect: the documentation\'s examples', () => {
  test('stop-limit, active orders, cancel: camelCase ids and deal fields, activation_price as written', () => {
    const o = parse('stopLimit', fixture('venue/http_post_order_stop_limit'));
    expect(o).toMatchObject({ orderId: 4180284841, clientOrderId: 'order1987111', market: 'BTC_USDT', side: 'buy', type: 'stop limit', timestamp: 1595792396.165973, activationCondition: 'gte', activated: false, status: 'FILLED' });
    expect(o.activationPrice).toEqual(d('40000'));
    expect(o.left).toEqual(d('0.01'));
    const [active] = parse('activeOrders', fixture('venue/http_post_orders'));
    expect(active).toMatchObject({ orderId: 4180284841, status: 'PARTIALLY_FILLED' });
    expect(parse('cancelOrder', fixture('venue/http_post_order_cancel')).status).toBe('CANCELED');
    const noId = parse('cancelOrder', { ...(fixture('venue/http_post_order_cancel') as object), clientOrderId: '' });
    expect(noId.clientOrderId).toBeUndefined();
  });
  test('OCO list, create and cancel: camelCase ids, snake_case post_only / activation fields', () => {
    const [oco] = parse('ocoList', fixture('venue/http_post_oco_orders'));
    expect(oco.id).toBe(117703764513);
    expect(oco.stopLoss).toMatchObject({ orderId: 117703764514, clientOrderId: undefined, type: 'margin stop limit', activationCondition: 'gte', activated: false, status: 'OPEN' });
    expect(oco.stopLoss.activationPrice).toEqual(d('29928.79'));
    expect(oco.takeProfit).toMatchObject({ orderId: 117703764515, type: 'margin limit', activationPrice: undefined });
    const created = parse('collateralOco', fixture('venue/http_post_order_collateral_oco'));
    expect(created.takeProfit.price).toEqual(d('9928.79'));
    const canceled = parse('cancelOco', fixture('venue/http_post_order_oco_cancel'));
    expect([canceled.stopLoss.status, canceled.takeProfit.status]).toEqual(['CANCELED', 'CANCELED']);
  });
});

describe('spec dialect: exchange-api.md\'s spellings', () => {
  test('stop-limit, active orders, cancel', () => {
    const o = parse('stopLimit', fixture('spec/http_post_order_stop_limit'), 'spec');
    expect(o).toMatchObject({ orderId: 3134995325, clientOrderId: 'tb-sma-1a2b3c4d-s8x0-o', activationCondition: 'gte', activated: false });
    expect(parse('activeOrders', fixture('spec/http_post_orders'), 'spec')[0].orderId).toBe(4180284841);
    expect(parse('cancelOrder', fixture('spec/http_post_order_cancel'), 'spec').status).toBe('CANCELED');
  });
  test('OCO list, create and cancel', () => {
    const [oco] = parse('ocoList', fixture('spec/http_post_orders_oco'), 'spec');
    expect(oco.stopLoss).toMatchObject({ orderId: 45, type: 'margin stop limit', activationCondition: 'gte' });
    expect(parse('collateralOco', fixture('spec/http_post_order_collateral_oco'), 'spec').stopLoss.orderId).toBe(117703764514);
    expect(parse('cancelOco', fixture('spec/http_post_order_oco_cancel'), 'spec').takeProfit.status).toBe('CANCELED');
  });
});

describe('a client in one dialect never understands the other dialect\'s order answers', () => {
  const pairs: readonly [EndpointId, string][] = [
    ['stopLimit', 'http_post_order_stop_limit'], ['activeOrders', 'http_post_orders'], ['cancelOrder', 'http_post_order_cancel'],
    ['collateralOco', 'http_post_order_collateral_oco'], ['cancelOco', 'http_post_order_oco_cancel'],
  ];
  test.each(pairs)('%s', (endpoint, name) => {
    expect(refused(endpoint, fixture(`spec/${name}`), 'venue')).toBe(true);
    expect(refused(endpoint, fixture(`venue/${name}`), 'spec')).toBe(true);
  });
  test('OCO list', () => {
    expect(refused('ocoList', fixture('spec/http_post_orders_oco'), 'venue')).toBe(true);
    expect(refused('ocoList', fixture('venue/http_post_oco_orders'), 'spec')).toBe(true);
  });
});
