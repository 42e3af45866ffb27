/**
 * The answer shapes of the API in canonical field names (the domain's vocabulary), in the order the
 * venue's examples write them. Each dialect spells every field of every shape (dialects.ts), or says
 * `null`: "this dialect does not send the field in this shape". The client parses answers and the
 * simulator writes them through that spelling, so no other code knows how a field is written on the
 * wire.
 */
export const ANSWER_SHAPES = {
  /** Stop-limit and limit order: create, cancel, active list. */
  order: [
    'orderId', 'clientOrderId', 'market', 'side', 'type', 'timestamp', 'dealMoney', 'dealStock', 'amount', 'left',
    'dealFee', 'price', 'postOnly', 'ioc', 'status', 'stp', 'rpi', 'activated', 'activationCondition', 'activationPrice',
  ],
  /** One leg of an OCO in the create answer. */
  ocoLeg: [
    'orderId', 'clientOrderId', 'market', 'side', 'type', 'timestamp', 'dealMoney', 'dealStock', 'amount', 'takerFee',
    'makerFee', 'left', 'dealFee', 'postOnly', 'mtime', 'price', 'activationPrice', 'activationCondition', 'activated',
    'status', 'stp', 'positionSide',
  ],
  /** One leg of an OCO in the active list and the cancel answer. */
  ocoListLeg: [
    'orderId', 'clientOrderId', 'market', 'side', 'type', 'timestamp', 'dealMoney', 'dealStock', 'amount', 'takerFee',
    'makerFee', 'left', 'dealFee', 'postOnly', 'status', 'stp', 'reduceOnly', 'mtime', 'price', 'activationPrice',
    'activationCondition', 'activated',
  ],
  oco: ['id', 'reduceOnly', 'stopLoss', 'takeProfit'],
  /** A finished order of trade-account/order/history (rows keyed by market). */
  historyOrder: [
    'orderId', 'clientOrderId', 'side', 'type', 'amount', 'left', 'price', 'timestamp', 'finishedAt', 'dealStock', 'dealMoney',
    'dealFee', 'feeAsset', 'postOnly', 'ioc', 'status', 'positionSide', 'rpi', 'reduceOnly', 'activationPrice',
    'activationCondition', 'activated',
  ],
  /** One of our executed deals (trade-account/executed-history). */
  deal: ['id', 'clientOrderId', 'time', 'side', 'role', 'amount', 'price', 'deal', 'fee', 'orderId', 'feeAsset'],
  killSwitchTimer: ['market', 'startTime', 'cancellationTime', 'types'],
  balanceEntry: ['available', 'freeze'],
  /** One asset of collateral-account/balance-summary. */
  collateralAsset: ['asset', 'balance', 'borrow', 'availableWithoutBorrow', 'availableWithBorrow'],
  mainBalanceEntry: ['mainBalance'],
  codesPage: ['total', 'data', 'limit', 'offset'],
  code: ['amount', 'code', 'date', 'status', 'ticker', 'externalId'],
  miningPage: ['data', 'limit', 'offset'],
  miningAccount: ['name', 'createdAt'],
  jwt: ['data'],
  jwtData: ['token', 'expiresAt'],
  websocketToken: ['websocketToken'],
  market: [
    'name', 'stock', 'money', 'stockPrec', 'moneyPrec', 'feePrec', 'makerFee', 'takerFee', 'minAmount', 'minTotal',
    'maxTotal', 'tradesEnabled', 'isCollateral', 'type',
  ],
  time: ['time'],
  /** The v1 public envelope (kline, ticker): `result` holds the data. */
  v1Envelope: ['success', 'message', 'result'],
} as const;

export type ShapeId = keyof typeof ANSWER_SHAPES;
export type ShapeField<S extends ShapeId> = (typeof ANSWER_SHAPES)[S][number];
/** How one dialect spells every field of one shape; null: the dialect does not send it there. */
export type ShapeNames<S extends ShapeId> = Readonly<Record<ShapeField<S>, string | null>>;
export type ShapeTable = { readonly [S in ShapeId]: ShapeNames<S> };

/** Field names written as they are read (most shapes, in both dialects), but for `renames`. */
export function sameNames<S extends ShapeId>(shape: S, renames: Partial<Record<ShapeField<S>, string | null>> = {}): ShapeNames<S> {
  const names: Record<string, string | null> = {};
  for (const field of ANSWER_SHAPES[shape]) {
    const rename = (renames as Record<string, string | null | undefined>)[field];
    names[field] = rename === undefined ? field : rename;
  }
  return names as ShapeNames<S>;
}

/**
 * One answer object in a dialect's spelling: the canonical `values` written under `names`, in the
 * shape's field order; fields the dialect does not send, and undefined values, are left out.
 */
export function writeShape<S extends ShapeId>(shape: S, names: ShapeNames<S>, values: Partial<Record<ShapeField<S>, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = ANSWER_SHAPES[shape] as readonly ShapeField<S>[];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as ShapeField<S>;
    const name = names[field];
    const value = values[field];
    if (name !== null && value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The shapes both dialects write alike. The spec does not describe history, deals or the kill-switch;
 * both dialects use the venue documentation's spelling for them.
 */
export const SHARED_SHAPES = {
  oco: sameNames('oco', { stopLoss: 'stop_loss', takeProfit: 'take_profit' }),
  historyOrder: sameNames('historyOrder', { orderId: 'id', timestamp: 'ctime', finishedAt: 'ftime' }),
  deal: sameNames('deal'),
  killSwitchTimer: sameNames('killSwitchTimer'),
  balanceEntry: sameNames('balanceEntry'),
  collateralAsset: sameNames('collateralAsset'),
  mainBalanceEntry: sameNames('mainBalanceEntry', { mainBalance: 'main_balance' }),
  codesPage: sameNames('codesPage'),
  code: sameNames('code', { externalId: 'external_id' }),
  miningPage: sameNames('miningPage'),
  miningAccount: sameNames('miningAccount'),
  jwt: sameNames('jwt'),
  jwtData: sameNames('jwtData', { expiresAt: 'expires_at' }),
  websocketToken: sameNames('websocketToken', { websocketToken: 'websocket_token' }),
  market: sameNames('market'),
  time: sameNames('time'),
  v1Envelope: sameNames('v1Envelope'),
} as const satisfies Partial<ShapeTable>;
