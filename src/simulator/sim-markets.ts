import { Decimal } from '../domain/decimal';
import type { MarketInfo, MarketName } from '../domain/market';

/**
 * Market definitions of the simulated exchange. The two markets of the sample data use rules like the
 * real venue's (precision, 5.05 minimum total, 0.1 % fees); any other `<STOCK>_<MONEY>` name gets the
 * same generic rules, with price precision taken from the data when known.
 */
const KNOWN: Readonly<Record<string, { stockPrec: number; moneyPrec: number; minAmount: string }>> = {
  BTC_USDT: { stockPrec: 6, moneyPrec: 2, minAmount: '0.0001' },
  ETH_USDT: { stockPrec: 4, moneyPrec: 2, minAmount: '0.001' },
};

export function simMarketInfo(name: MarketName, overrides: Partial<MarketInfo> = {}): MarketInfo {
  const [stock = name, money = 'USDT'] = name.split('_');
  const known = KNOWN[name] ?? { stockPrec: 6, moneyPrec: 2, minAmount: '0.0001' };
  return {
    name,
    stock,
    money,
    stockPrec: known.stockPrec,
    moneyPrec: known.moneyPrec,
    feePrec: 6,
    minAmount: new Decimal(known.minAmount),
    minTotal: new Decimal('5.05'),
    maxTotal: new Decimal('0'),
    makerFee: new Decimal('0.001'),
    takerFee: new Decimal('0.001'),
    tradesEnabled: true,
    isCollateral: true,
    type: 'spot',
    ...overrides,
  };
}
