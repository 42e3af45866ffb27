/**
 * The simulated exchange's matching engine: pure (no I/O), deterministic for a given sequence of
 * calls. The HTTP server, paper mode and the backtester all drive this one class.
 *
 * Backtest use, with no HTTP at all:
 *
 *   const clock = new ManualClock(start * 1000);
 *   const engine = new SimEngine({ clock, markets: [simMarketInfo('BTC_USDT')] });   // sim-markets.ts
 *   engine.openAccount('bt', { trading: { USDT: '10000' } });
 *   engine.setLastPrice('BTC_USDT', firstCandle.open);
 *   for (const candle of candles) {                       // 1m candles, ascending
 *     clock.setMs((candle.time + 60) * 1000);                  // the candle has closed
 *     engine.processTimers(candle.time + 60);                  // kill-switch expiries first
 *     const events = engine.applyCandle('BTC_USDT', candle);   // triggers, fills, OCO cancels, in path order
 *     ... strategy decides, then engine.placeStopLimit('bt', {...}) / placeOco / cancelOrder ...
 *   }
 *
 * Amounts and prices are Decimals. `events` (EngineEvent: triggered / filled with its deal / canceled
 * with a reason) can also be observed with `onEvent`. Balances: tradingBalances / collateralBalances;
 * history: orderHistory / deals (newest first, bounded).
 *
 * Every rejection throws the same ExchangeRejectedError subclasses the HTTP client raises (see
 * rejections.ts), carrying the venue code, field errors and HTTP status. Orders and OCO groups returned
 * are the engine's live objects: read them, never mutate them. See FILL-MODEL.md for the fill rules.
 */
import type { Clock } from '../../core/clock';
import { Decimal } from '../../domain/decimal';
import { AuthenticationError } from '../../domain/errors';
import type { MarketInfo, MarketName } from '../../domain/market';
import { CandleWalk, type EngineCandle } from './candle-walk';
import { MarketState } from './market-state';
import { EngineEvents } from './engine-events';
import { DEFAULT_FILL_MODEL, type FillModel } from '../../domain/fill-model';
import { KillSwitchTimers } from './kill-switch-timers';
import { Ledger } from './ledger';
import { compareDecimals, productOf } from '../../domain/decimal-compare';
import { conditionHolds, isMarketable } from './matching';
import { OrderExecution } from './order-execution';
import { checkActivationPrice, checkLimitOrder } from './order-checks';
import { OrderBook } from './order-book';
import {
  duplicateClientOrderId, marketNotAvailable, ocoNotEnoughBalance, ocoRejected, orderNotFound, validationError,
} from './rejections';
import { checkTransfer } from './transfer-checks';
import type {
  AccountFunding, EngineEvent, PlaceLimitInput, PlaceOcoInput, PlaceStopLimitInput, Reserve, SimDeal, SimKillSwitch,
  SimOco, SimOrder, SimOrderRef, SimOrderType, TransferInput, Wallet,
} from './types';

export interface SimEngineOptions {
  /** The MARKET clock: timestamps of orders, deals and kill-switch timers come from it. */
  readonly clock: Clock;
  readonly markets: readonly MarketInfo[];
  /** Finished orders and deals kept per account (oldest dropped first). Default 10 000. */
  readonly historyLimit?: number;
  /**
   * Which balance the collateral OCO uses (FILL-MODEL.md, "Collateral"):
   * - 'separate' (default, as the live exchange): the collateral account, margin in the MONEY
   *   currency. Any OCO holds amount x worst price (+ fee) of money; a sell fill takes the stock out
   *   of the collateral account (a short when it holds none) and pays the money in. Stock held in the
   *   trading balance is not touched, exactly as live, where OCO exists only on margin markets.
   * - 'unified': OCO legs use the TRADING balance like spot orders (a sell holds and sells the stock
   *   bought with spot orders). No such order exists on the live exchange: a modelling convenience.
   */
  readonly collateral?: CollateralMode;
  /** Partial fills by volume and the OCO rule (fill-model.ts); default DEFAULT_FILL_MODEL, the real behaviour. */
  readonly fillModel?: FillModel;
  /**
   * The client order id an OCO's LEGS carry (create and list answers, history and deal rows):
   * - 'empty' (default, as the venue documents it): `""` on both legs, whatever the request sent. The
   *   OCO itself keeps the id (cancel by clientOrderId, uniqueness among open orders).
   * - 'echo': both legs carry the id sent (what this simulator did before; for tests of that case).
   */
  readonly ocoLegIds?: OcoLegIds;
}

// The mode is the domain's: the executor's balance checks follow the same rule (domain/collateral.ts).
import type { CollateralMode } from '../../domain/collateral';
export type { CollateralMode };
export type OcoLegIds = 'echo' | 'empty';
export const OCO_LEG_IDS: readonly OcoLegIds[] = ['echo', 'empty'];

const ZERO = new Decimal(0);
const NO_EVENTS: readonly EngineEvent[] = Object.freeze([]);

export class SimEngine {
  private readonly clock: Clock;
  private readonly marketStates = new Map<MarketName, MarketState>();
  private readonly accounts = new Map<string, Ledger>();
  private readonly book: OrderBook;
  private readonly killSwitches = new KillSwitchTimers();
  private readonly events = new EngineEvents();
  private readonly placedListeners: ((order: SimOrder) => void)[] = [];
  private readonly execution: OrderExecution;
  private readonly walk: CandleWalk;
  private nextOrderId = 1;
  private readonly holdFactors = new WeakMap<MarketInfo, Decimal>();
  private readonly collateralMode: CollateralMode;
  private readonly ocoLegIds: OcoLegIds;
  readonly fillModel: FillModel;

  constructor(options: SimEngineOptions) {
    this.clock = options.clock;
    this.collateralMode = options.collateral ?? 'separate';
    this.ocoLegIds = options.ocoLegIds ?? 'empty';
    this.fillModel = options.fillModel ?? DEFAULT_FILL_MODEL;
    this.book = new OrderBook(options.historyLimit ?? 10_000);
    this.execution = new OrderExecution(this.book, (k) => this.requireAccount(k), (m) => this.requireMarket(m).info, (e) => this.events.emit(e),
      this.fillModel.ocoCancelOn);
    this.walk = new CandleWalk(this.book, this.execution, this.fillModel);
    for (const market of options.markets) this.addMarket(market);
  }

  // ---- setup ------------------------------------------------------------------------------------

  addMarket(info: MarketInfo): void {
    this.marketStates.set(info.name, new MarketState(info));
  }

  markets(): MarketInfo[] {
    return [...this.marketStates.values()].map((m) => m.info);
  }

  market(name: MarketName): MarketInfo | undefined {
    return this.marketStates.get(name)?.info;
  }

  openAccount(apiKey: string, funding: AccountFunding = {}): void {
    const currencies = new Set<string>();
    for (const { info } of this.marketStates.values()) currencies.add(info.stock).add(info.money);
    this.accounts.set(apiKey, new Ledger(funding, currencies));
  }

  hasAccount(apiKey: string): boolean {
    return this.accounts.has(apiKey);
  }

  /** Sets the market's last price without applying a candle (start of replay, or the price inside the open candle). */
  setLastPrice(market: MarketName, price: Decimal): void {
    const state = this.requireMarket(market);
    state.lastPrice = price;
    if (state.pathPrice === undefined) state.pathPrice = price;
  }

  lastPrice(market: MarketName): Decimal | undefined {
    return this.marketStates.get(market)?.lastPrice;
  }

  /** Called for every event as it happens (in addition to the arrays returned by applyCandle/processTimers). */
  onEvent(listener: (event: EngineEvent) => void): void {
    this.events.on(listener);
  }

  /**
   * Called when an order is created, before anything happens to it (an immediate fill or trigger follows
   * as ordinary events). Not an EngineEvent: the backtester and logs react to outcomes only; the
   * WebSocket twin needs the creation to number its order events as the venue does.
   */
  onOrderPlaced(listener: (order: SimOrder) => void): void {
    this.placedListeners.push(listener);
  }

  // ---- the market moves -------------------------------------------------------------------------

  /**
   * Applies one CLOSED candle of `market`: the jump from the previous price to its open, then its
   * price path (FILL-MODEL.md), triggering stops and filling resting orders (up to the candle's share
   * of volume) in the order the path reaches them; then the last price is the close. Events are
   * stamped with the candle's close time (`candle.time + intervalSeconds`).
   */
  applyCandle(market: MarketName, candle: EngineCandle, intervalSeconds = 60): readonly EngineEvent[] {
    const state = this.requireMarket(market);
    // Fast exit, allocating nothing: no open order, or none whose level this candle's path can reach.
    const events = this.book.hasOpenInMarket(market) && this.walk.canReach(market, candle, state)
      ? this.walkCandle(market, candle, candle.time + intervalSeconds)
      : NO_EVENTS;
    state.settle(candle);
    return events;
  }

  /** The slow path of applyCandle, in its own method: its closure context is only allocated here. */
  private walkCandle(market: MarketName, candle: EngineCandle, time: number): readonly EngineEvent[] {
    return this.events.collect(() => this.walk.walk(market, candle, time));
  }

  /** Fires kill-switch timers whose cancellation time has passed on the market clock. */
  processTimers(nowSeconds: number = this.now()): EngineEvent[] {
    return this.events.collect(() => {
      for (const { apiKey, timer, types } of this.killSwitches.takeDue(nowSeconds)) {
        for (const order of this.book.openOf(apiKey, timer.market)) {
          if (order.status === 'OPEN' && types.has(order.type)) this.execution.cancel(order, 'kill_switch', timer.cancellationTime);
        }
      }
    });
  }


  // ---- orders -------------------------------------------------------------------------------------

  /** A plain limit order (`order/new`): trades at once as taker if marketable, else rests as maker. */
  placeLimit(apiKey: string, input: PlaceLimitInput): SimOrder {
    const state = this.prepare(apiKey, input);
    const { info, lastPrice } = state;
    checkLimitOrder(info, input.amount, input.price);
    const reserve = this.reserveFor(apiKey, 'trading', info, input.side, input.amount, input.price);
    const order = this.newOrder(apiKey, input, 'limit', reserve, undefined, undefined);
    if (lastPrice !== undefined && isMarketable(order.side, order.price, lastPrice)) {
      this.execution.fill(order, lastPrice, 2, this.now(), this.walk.arrivalLiquidity(state));
    }
    return order;
  }

  /** `order/stop_limit`: buy waits for price >= activation (gte), sell for price <= activation (lte). */
  placeStopLimit(apiKey: string, input: PlaceStopLimitInput): SimOrder {
    const state = this.prepare(apiKey, input);
    const { info, lastPrice } = state;
    checkActivationPrice(info, input.activationPrice);
    checkLimitOrder(info, input.amount, input.price);
    const last = this.requireLastPrice(lastPrice, input.activationPrice);
    const reserve = this.reserveFor(apiKey, 'trading', info, input.side, input.amount, input.price);
    const condition = input.side === 'buy' ? 'gte' : 'lte';
    const order = this.newOrder(apiKey, input, 'stop limit', reserve, input.activationPrice, condition);
    if (conditionHolds(condition, input.activationPrice, last)) {
      this.execution.trigger(order, last, this.now(), this.walk.arrivalLiquidity(state));
    }
    return order;
  }

  /**
   * `order/collateral/oco`: a take-profit limit at `price` and a stop-loss (activation, then a limit at
   * `stopLimitPrice`), same side and amount, on the collateral balance. For a sell the stop must sit
   * below the last price and the take-profit above it; mirrored for a buy.
   */
  placeOco(apiKey: string, input: PlaceOcoInput): SimOco {
    const { info, lastPrice } = this.prepare(apiKey, input);
    checkLimitOrder(info, input.amount, input.price);
    checkActivationPrice(info, input.activationPrice);
    checkLimitOrder(info, input.amount, input.stopLimitPrice, 'stop_limit_price');
    const last = this.requireLastPrice(lastPrice, input.activationPrice);
    const sell = input.side === 'sell';
    if (sell ? compareDecimals(input.activationPrice, last) > 0 : compareDecimals(input.activationPrice, last) < 0) {
      throw ocoRejected(151, 'activation_price', 'Wrong activation price for stop loss.');
    }
    // The take-profit limit must rest: one that would trade at once is refused.
    if (isMarketable(input.side, input.price, last)) throw ocoRejected(150, 'price', "Can't place limit order.");
    const worstPrice = compareDecimals(input.price, input.stopLimitPrice) >= 0 ? input.price : input.stopLimitPrice;
    const reserve = this.collateralMode === 'unified'
      ? this.reserveFor(apiKey, 'trading', info, input.side, input.amount, worstPrice)
      : this.marginFor(apiKey, info, input);
    const id = this.nextOrderId++;
    const legInput = this.ocoLegIds === 'echo' ? input : { ...input, clientOrderId: '' };
    const group = { id, clientOrderId: input.clientOrderId ?? '' };
    const stopLoss = this.newOrder(apiKey, { ...legInput, price: input.stopLimitPrice }, 'margin stop limit', reserve,
      input.activationPrice, sell ? 'lte' : 'gte', group);
    const takeProfit = this.newOrder(apiKey, legInput, 'margin limit', reserve, undefined, undefined, group);
    const oco: SimOco = { id, apiKey, market: info.name, clientOrderId: input.clientOrderId ?? '', stopLoss, takeProfit };
    this.book.addOco(oco);
    return oco;
  }

  /** `order/cancel`. Cancelling one OCO leg cancels the whole group. Not open -> code 2. */
  cancelOrder(apiKey: string, market: MarketName, ref: SimOrderRef): SimOrder {
    this.requireAccount(apiKey);
    this.requireMarket(market);
    const order = 'orderId' in ref ? this.book.get(ref.orderId) : this.book.findByClientId(apiKey, market, ref.clientOrderId);
    if (order === undefined || order.apiKey !== apiKey || order.market !== market) {
      throw orderNotFound('orderId' in ref ? 'orderId' : 'clientOrderId');
    }
    this.events.collect(() => this.execution.cancel(order, 'user', this.now()));
    return order;
  }

  /** `order/oco-cancel`: `orderId` is the OCO id. */
  cancelOco(apiKey: string, market: MarketName, ref: SimOrderRef): SimOco {
    this.requireAccount(apiKey);
    this.requireMarket(market);
    const oco = 'orderId' in ref ? this.book.getOco(ref.orderId) : this.book.findOcoByClientId(apiKey, market, ref.clientOrderId);
    if (oco === undefined || oco.apiKey !== apiKey || oco.market !== market) {
      throw orderNotFound('orderId' in ref ? 'orderId' : 'clientOrderId');
    }
    this.events.collect(() => {
      for (const leg of [oco.stopLoss, oco.takeProfit]) if (leg.status === 'OPEN') this.execution.cancel(leg, 'user', this.now());
    });
    return oco;
  }

  // ---- kill-switch ------------------------------------------------------------------------------

  /** Arms or refreshes the market's timer (`timeoutSeconds` 5..600), or deletes it with null. */
  setKillSwitch(apiKey: string, market: MarketName, timeoutSeconds: number | null, types: readonly string[] | null = null): SimKillSwitch | null {
    this.requireAccount(apiKey);
    this.requireMarket(market);
    return this.killSwitches.set(apiKey, market, timeoutSeconds, types, this.now());
  }


  killSwitchStatus(apiKey: string, market?: MarketName): SimKillSwitch[] {
    return this.killSwitches.status(apiKey, market);
  }


  // ---- balances ----------------------------------------------------------------------------------

  /**
   * `main-account/transfer`: moves `amount` of `ticker` between the main, spot (trading) and collateral
   * balances, e.g. to fund the collateral account OCOs trade on. Refused as the venue refuses (code 0
   * validation, code 3 not enough balance: only the available, unfrozen part can move).
   */
  transfer(apiKey: string, input: TransferInput): void {
    const ledger = this.requireAccount(apiKey);
    const known = this.markets().some((m) => m.stock === input.ticker || m.money === input.ticker);
    const from = input.from === 'spot' ? 'trading' : input.from;
    const to = input.to === 'spot' ? 'trading' : input.to;
    checkTransfer(input, known, ledger.transferable(from, input.ticker));
    ledger.transfer(from, to, input.ticker, input.amount);
  }

  // ---- queries ------------------------------------------------------------------------------------

  /** Open spot orders (OCO legs are listed by activeOcos), oldest first. */
  activeOrders(apiKey: string, filter: { market?: MarketName; orderId?: number; clientOrderId?: string } = {}): SimOrder[] {
    return this.book.openOf(apiKey, filter.market).filter((o) => o.ocoId === undefined
      && (filter.orderId === undefined || o.id === filter.orderId)
      && (filter.clientOrderId === undefined || o.clientOrderId === filter.clientOrderId));
  }

  activeOcos(apiKey: string, market?: MarketName): SimOco[] {
    return this.book.openOcosOf(apiKey, market);
  }

  /** Finished orders, newest first. */
  orderHistory(apiKey: string): readonly SimOrder[] {
    return this.book.historyOf(apiKey);
  }

  /** Finished orders that `keep` accepts, newest first (a look-up by id reads the history without copying it). */
  orderHistoryWhere(apiKey: string, keep: (order: SimOrder) => boolean): SimOrder[] {
    return this.book.historyWhere(apiKey, keep);
  }

  /** One finished order by its id (still in the bounded history), without scanning it. */
  finishedOrder(apiKey: string, id: number): SimOrder | undefined {
    return this.book.finishedOrder(apiKey, id);
  }

  /** Executed deals, newest first. */
  deals(apiKey: string): readonly SimDeal[] {
    return this.book.dealsOf(apiKey);
  }

  tradingBalances(apiKey: string): ReturnType<Ledger['balances']> {
    return this.requireAccount(apiKey).balances('trading');
  }

  collateralBalances(apiKey: string): ReturnType<Ledger['balances']> {
    return this.requireAccount(apiKey).balances('collateral');
  }

  mainBalances(apiKey: string): ReadonlyMap<string, Decimal> {
    return this.requireAccount(apiKey).mainBalances();
  }

  now(): number {
    return this.clock.nowMs() / 1000;
  }

  // ---- internals ----------------------------------------------------------------------------------

  /** Account and market checks of a new order; returns the market's state (info, last price). */
  private prepare(apiKey: string, input: PlaceLimitInput): MarketState {
    this.requireAccount(apiKey);
    const state = this.requireMarket(input.market);
    if (input.clientOrderId !== undefined && input.clientOrderId !== ''
      && (this.book.findByClientId(apiKey, input.market, input.clientOrderId) !== undefined
        || this.book.findOcoByClientId(apiKey, input.market, input.clientOrderId) !== undefined)) {
      throw duplicateClientOrderId();
    }
    return state;
  }

  private requireLastPrice(lastPrice: Decimal | undefined, activationPrice: Decimal): Decimal {
    if (lastPrice === undefined) throw validationError(30, 'lastPrice', 'Empty history');
    if (compareDecimals(activationPrice, lastPrice) === 0) {
      throw validationError(30, 'activationPrice', 'Activation price should not be equal to the last price');
    }
    return lastPrice;
  }

  private reserveFor(apiKey: string, wallet: Wallet, info: MarketInfo, side: 'buy' | 'sell', amount: Decimal, price: Decimal): Reserve {
    const ledger = this.requireAccount(apiKey);
    if (side === 'sell') return ledger.freeze(wallet, info.stock, amount);
    // A buy holds its total plus the larger fee, so any fill (maker or taker, at or below the limit) is covered.
    return ledger.freeze(wallet, info.money, productOf(amount, price).times(this.buyHoldFactor(info)));
  }

  /**
   * Margin of a collateral OCO in 'separate' mode: amount x price x (1 + larger fee) of the MONEY
   * currency from the collateral balance, for a sell as for a buy (1x: no leverage is modelled), held
   * once for the more expensive leg. Each leg is checked as the venue does: the stop-loss leg first
   * (code 152), then the take-profit leg (153).
   */
  private marginFor(apiKey: string, info: MarketInfo, input: PlaceOcoInput): Reserve {
    const ledger = this.requireAccount(apiKey);
    const factor = this.buyHoldFactor(info);
    const stopLoss = productOf(input.amount, input.stopLimitPrice).times(factor);
    const takeProfit = input.amount.times(input.price).times(factor);
    const available = ledger.entry('collateral', info.money).available;
    if (compareDecimals(available, stopLoss) < 0) throw ocoNotEnoughBalance('stop_loss');
    if (compareDecimals(available, takeProfit) < 0) throw ocoNotEnoughBalance('take_profit');
    return ledger.freeze('collateral', info.money, compareDecimals(stopLoss, takeProfit) >= 0 ? stopLoss : takeProfit);
  }

  /** 1 + max(maker fee, taker fee), per market info object (fees are fixed per market). */
  private buyHoldFactor(info: MarketInfo): Decimal {
    let factor = this.holdFactors.get(info);
    if (factor === undefined) {
      factor = Decimal.max(info.makerFee, info.takerFee).plus(1);
      this.holdFactors.set(info, factor);
    }
    return factor;
  }

  private newOrder(
    apiKey: string, input: PlaceLimitInput, type: SimOrderType, reserve: Reserve,
    activationPrice: Decimal | undefined, activationCondition: 'lte' | 'gte' | undefined, oco?: { readonly id: number; readonly clientOrderId: string },
  ): SimOrder {
    const info = this.requireMarket(input.market).info;
    const now = this.now();
    const order: SimOrder = {
      id: this.nextOrderId++, apiKey, market: input.market, side: input.side, type, clientOrderId: input.clientOrderId ?? '',
      amount: input.amount, price: input.price, activationPrice, activationCondition,
      activated: activationPrice === undefined, activatedAt: undefined,
      left: input.amount, dealStock: ZERO, dealMoney: ZERO, dealFee: ZERO, status: 'OPEN',
      createdAt: now, updatedAt: now, finishedAt: undefined, makerFee: info.makerFee, takerFee: info.takerFee, reserve,
      ocoId: oco?.id, ...(oco === undefined ? {} : { ocoClientOrderId: oco.clientOrderId }),
    };
    this.book.add(order);
    for (const listener of this.placedListeners) listener(order);
    return order;
  }

  private requireMarket(name: MarketName): MarketState {
    const state = this.marketStates.get(name);
    if (state === undefined) throw marketNotAvailable();
    return state;
  }

  private requireAccount(apiKey: string): Ledger {
    const ledger = this.accounts.get(apiKey);
    if (ledger === undefined) throw new AuthenticationError('Unauthorized request.', 10, {}, 401);
    return ledger;
  }
}
