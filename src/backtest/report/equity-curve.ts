import type { Candle, Interval } from '../../domain/candle';
import { closeNumber } from '../../candle-files/csv-columns';
import { intervalSeconds } from '../../domain/candle';
import { Decimal } from '../../domain/decimal';
import { BacktestInputError } from '../../domain/errors';
import type { MarketName } from '../../domain/market';
import type { BacktestFill, CandlesByMarket, EquityPoint, EquitySeries, StartBalances } from './types';
import { addScaled, formatScaled, mulScaled, scaledOf, scaledOfDouble, type Scaled } from './scaled-decimal';
import { CLOSE, ColumnCandle } from '../../candle-files/csv-columns';

interface MarketBook {
  readonly market: MarketName;
  readonly candles: readonly Candle[];
  /** The double of the first open: the price until the first close is seen. */
  readonly priceF: number;
  baseBalance: Decimal;
}

/** The balances between two fills, shared by every point of that stretch. */
interface Holdings {
  readonly quote: Decimal;
  readonly quoteF: number;
  /** Per book (in the order of the curve's books): the base balance, zero when flat. */
  readonly bases: readonly Decimal[];
  readonly basesF: readonly number[];
  /** Built on the first equityText() of the stretch: the text when flat, else the scaled balances. */
  text?: string | undefined;
  scaled?: { readonly quote: Scaled; readonly bases: readonly (Scaled | undefined)[] } | null | undefined;
}

/**
 * A point of the curve: its double computed at once, its exact Decimal only when read (from the
 * holdings and the prices the point saw; built anew on each read, nothing kept), so a year of 1m
 * candles costs a double per candle, not three Decimals.
 */
class CurvePoint implements EquityPoint {
  constructor(readonly time: number, readonly value: number, private readonly holdings: Holdings, private readonly prices: readonly (Decimal | Candle)[] | Decimal | Candle) {}

  get equity(): Decimal {
    const h = this.holdings;
    let sum = h.quote;
    for (let i = 0; i < h.bases.length; i++) {
      const base = h.bases[i] as Decimal;
      if (base.isZero()) continue;
      const p = Array.isArray(this.prices) ? (this.prices as readonly (Decimal | Candle)[])[i] as Decimal | Candle : this.prices as Decimal | Candle;
      sum = sum.plus(base.times(p instanceof Decimal ? p : p.close));
    }
    return sum;
  }

  /** `equity.toString()`, computed in scaled integers (exact) instead of Decimals; the flat text once per stretch. */
  equityText(): string {
    const h = this.holdings;
    if (h.basesF.every((b) => b === 0) && h.bases.every((b) => b.isZero())) return (h.text ??= h.quote.toString());
    if (h.scaled === undefined) {
      const quote = scaledOf(h.quote);
      const bases = h.bases.map((b) => (b.isZero() ? undefined : scaledOf(b)));
      h.scaled = quote === undefined || bases.some((b, i) => b === undefined && !(h.bases[i] as Decimal).isZero()) ? null : { quote, bases };
    }
    const sc = h.scaled;
    if (sc === null) return this.equity.toString();
    let sum = sc.quote;
    for (let i = 0; i < sc.bases.length; i++) {
      const base = sc.bases[i];
      if (base === undefined) continue;
      const p = Array.isArray(this.prices) ? (this.prices as readonly (Decimal | Candle)[])[i] as Decimal | Candle : this.prices as Decimal | Candle;
      const price = p instanceof ColumnCandle ? scaledOfDouble(p.value(CLOSE)) : scaledOf(p instanceof Decimal ? p : p.close);
      if (price === undefined) return this.equity.toString();
      sum = addScaled(sum, mulScaled(base, price));
    }
    return formatScaled(sum);
  }
}

/**
 * Replays fills over the candles to get the account value in `quoteCurrency` per candle.
 *
 * Point 0 is the start: time = earliest candle open, start balances valued at each market's first
 * open. Then one point per distinct candle open time `t` (the union over markets, gaps kept):
 * time = t + interval (the candle's close instant), balances after every fill with
 * `time < t + interval` (fills at or before the last close instant all land in the last point),
 * each base currency valued at its market's latest close so far.
 *
 * A buy adds `amount` base and costs `amount × price + fee` quote; a sell the reverse, minus the fee.
 * Balances are not checked for going negative: the backtester's risk checks own that.
 *
 * Throws BacktestInputError when a market is not `<BASE>_<quoteCurrency>`, candles are unsorted,
 * a fill's market has no candles, a fill lies outside the candles' time range, or a non-zero
 * start balance has no `<CUR>_<quoteCurrency>` market to value it.
 */
export function buildEquityCurve(
  fills: readonly BacktestFill[],
  candles: CandlesByMarket,
  startBalances: StartBalances,
  quoteCurrency: string,
  interval: Interval,
): EquityPoint[] {
  const series = buildEquitySeries(fills, candles, startBalances, quoteCurrency, interval);
  const points: EquityPoint[] = new Array<EquityPoint>(series.length);
  for (let i = 0; i < series.length; i++) points[i] = series.point(i);
  return points;
}

/**
 * `buildEquityCurve` as columns: a time and a double per point, and for the exact value only the
 * index of the holdings stretch and of each market's pricing candle (no object per point: a year
 * of 1m candles is 525,600 points). `point(i)` builds the exact point on demand.
 */
export function buildEquitySeries(
  fills: readonly BacktestFill[],
  candles: CandlesByMarket,
  startBalances: StartBalances,
  quoteCurrency: string,
  interval: Interval,
): EquitySeries {
  const step = intervalSeconds(interval);
  const books = new Map<MarketName, MarketBook>();
  for (const [market, list] of Object.entries(candles)) {
    const first = list[0];
    if (first === undefined) continue;
    assertQuotedIn(market, quoteCurrency);
    books.set(market, { market, candles: list, priceF: first.open.toNumber(), baseBalance: new Decimal(0) });
    for (let i = 1; i < list.length; i++) {
      if ((list[i] as Candle).time <= (list[i - 1] as Candle).time) {
        throw new BacktestInputError(`candles.${market}[${i}]: candles must be sorted by time without duplicates`, { field: `candles.${market}` });
      }
    }
  }
  if (books.size === 0) throw new BacktestInputError('candles: at least one market needs candles', { field: 'candles' });

  let quote = new Decimal(0);
  for (const [currency, amount] of Object.entries(startBalances)) {
    if (currency === quoteCurrency) {
      quote = quote.plus(amount);
      continue;
    }
    const book = books.get(`${currency}_${quoteCurrency}`);
    if (book === undefined) {
      if (amount.isZero()) continue;
      throw new BacktestInputError(`startBalances.${currency}: no ${currency}_${quoteCurrency} candles to value it`, { field: `startBalances.${currency}` });
    }
    book.baseBalance = book.baseBalance.plus(amount);
  }

  const times = unionOfTimes([...books.values()].map((b) => b.candles));
  const startTime = times[0] as number;
  const lastClose = (times[times.length - 1] as number) + step;
  const sorted = [...fills].sort((a, b) => a.time - b.time);
  for (const fill of sorted) {
    if (!books.has(fill.market)) {
      throw new BacktestInputError(`fill ${fill.clientOrderId}: market ${fill.market} has no candles`, { field: 'fills.market', market: fill.market });
    }
    if (fill.time < startTime || fill.time > lastClose) {
      throw new BacktestInputError(`fill ${fill.clientOrderId} at ${fill.time} is outside the candles (${startTime}..${lastClose})`, { field: 'fills.time', time: fill.time });
    }
  }

  const bookList = [...books.values()];
  const nb = bookList.length;
  const n = times.length + 1;
  const out = new ColumnSeries(n, bookList.map((b) => b.candles));
  const prices = new Float64Array(nb);
  for (let k = 0; k < nb; k++) prices[k] = (bookList[k] as MarketBook).priceF;
  // The balances of the current stretch between fills, as doubles for the values.
  let quoteF = 0;
  const basesF = new Float64Array(nb);
  const newStretch = (): void => {
    const h: Holdings = { quote, quoteF: quote.toNumber(), bases: bookList.map((b) => b.baseBalance), basesF: bookList.map((b) => b.baseBalance.toNumber()) };
    out.stretches.push(h);
    quoteF = h.quoteF;
    for (let k = 0; k < nb; k++) basesF[k] = h.basesF[k] as number;
  };
  newStretch();
  const { times: outTimes, values, stretchOf, candleOf } = out;
  const nexts = new Int32Array(nb);
  // One loop, no closure per point: half a million iterations a year, most of them before V8 optimises.
  let stretch = 0;
  let nextFill = 0;
  outTimes[0] = startTime;
  values[0] = valueOf(quoteF, basesF, prices);
  for (let k = 0; k < nb; k++) (candleOf[k] as Int32Array)[0] = -1;
  for (let i = 0; i < times.length; i++) {
    const t = times[i] as number;
    const closeAt = t + step;
    const isLast = i === times.length - 1;
    let filled = false;
    while (nextFill < sorted.length) {
      const fill = sorted[nextFill] as BacktestFill;
      if (!(fill.time < closeAt || isLast)) break;
      const book = books.get(fill.market) as MarketBook;
      const notional = fill.amount.times(fill.price);
      if (fill.side === 'buy') {
        book.baseBalance = book.baseBalance.plus(fill.amount);
        quote = quote.minus(notional).minus(fill.fee);
      } else {
        book.baseBalance = book.baseBalance.minus(fill.amount);
        quote = quote.plus(notional).minus(fill.fee);
      }
      filled = true;
      nextFill++;
    }
    if (filled) {
      newStretch();
      stretch++;
    }
    for (let k = 0; k < nb; k++) {
      const list = (bookList[k] as MarketBook).candles;
      const at = nexts[k] as number;
      const candle = list[at];
      if (candle !== undefined && candle.time === t) {
        prices[k] = closeNumber(candle);
        nexts[k] = at + 1;
      }
      (candleOf[k] as Int32Array)[i + 1] = (nexts[k] as number) - 1;
    }
    outTimes[i + 1] = closeAt;
    values[i + 1] = valueOf(quoteF, basesF, prices);
    stretchOf[i + 1] = stretch;
  }
  return out;
}

/** quote + Σ base × price, in doubles (a flat market adds nothing, even at a price never seen). */
function valueOf(quoteF: number, basesF: Float64Array, prices: Float64Array): number {
  let value = quoteF;
  for (let k = 0; k < basesF.length; k++) {
    const b = basesF[k] as number;
    if (b !== 0) value += b * (prices[k] as number);
  }
  return value;
}

/** The series built by buildEquitySeries: columns, and the exact point rebuilt from them on demand. */
class ColumnSeries implements EquitySeries {
  readonly times: Float64Array;
  readonly values: Float64Array;
  readonly stretches: Holdings[] = [];
  readonly stretchOf: Int32Array;
  /** Per market (the books' order): index of the candle whose close prices point k; -1 = the first open. */
  readonly candleOf: Int32Array[];

  constructor(readonly length: number, private readonly candles: readonly (readonly Candle[])[]) {
    this.times = new Float64Array(length);
    this.values = new Float64Array(length);
    this.stretchOf = new Int32Array(length);
    this.candleOf = candles.map(() => new Int32Array(length));
  }

  point(k: number): EquityPoint {
    const prices = this.candles.map((list, i) => {
      const at = (this.candleOf[i] as Int32Array)[k] as number;
      return at < 0 ? (list[0] as Candle).open : list[at] as Candle;
    });
    return new CurvePoint(this.times[k] as number, this.values[k] as number, this.stretches[this.stretchOf[k] as number] as Holdings, prices.length === 1 ? prices[0] as Decimal | Candle : prices);
  }
}

/** Valuation needs every market priced in the quote currency: `BTC_USDT` with quote `USDT`. */
function assertQuotedIn(market: MarketName, quoteCurrency: string): void {
  const suffix = `_${quoteCurrency}`;
  if (!market.endsWith(suffix) || market.length === suffix.length) {
    throw new BacktestInputError(`market ${market} is not quoted in ${quoteCurrency}`, { field: 'candles', market });
  }
}

/** The distinct open times of several ascending candle lists, ascending: a merge, no set and no sort (half a million candles a year). */
function unionOfTimes(lists: readonly (readonly Candle[])[]): number[] {
  if (lists.length === 1) return (lists[0] as readonly Candle[]).map((c) => c.time);
  const out: number[] = [];
  const at = lists.map(() => 0);
  for (;;) {
    let t = Number.POSITIVE_INFINITY;
    for (let k = 0; k < lists.length; k++) {
      const c = (lists[k] as readonly Candle[])[at[k] as number];
      if (c !== undefined && c.time < t) t = c.time;
    }
    if (t === Number.POSITIVE_INFINITY) return out;
    out.push(t);
    for (let k = 0; k < lists.length; k++) {
      const c = (lists[k] as readonly Candle[])[at[k] as number];
      if (c !== undefined && c.time === t) at[k] = (at[k] as number) + 1;
    }
  }
}
