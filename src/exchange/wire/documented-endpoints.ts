import type { EndpointWire } from './dialect';

/**
 * Endpoints exchange-api.md does not describe (its account and collateral sections list no fields),
 * spelled in both dialects as the venue's documentation writes them (openapi/private/http-trade-v4.yaml,
 * openapi/private/main_api_v4.yaml of whitebit-exchange/docs):
 * - collateral-account/balance: `{"BTC":1,"USDT":1000}`, JSON numbers per asset;
 * - collateral-account/balance-summary: `[{"asset","balance","borrow","availableWithoutBorrow","availableWithBorrow"}]`;
 * - main-account/transfer: `ticker`, `amount`, and `from` + `to` (`main` | `spot` | `collateral`) or the
 *   older `method`; success is HTTP 201 with `[]`.
 */
export const DOCUMENTED_ENDPOINTS = {
  collateralBalance: { path: '/api/v4/collateral-account/balance', request: { ticker: 'ticker' }, answer: [] },
  collateralBalanceSummary: { path: '/api/v4/collateral-account/balance-summary', request: { ticker: 'ticker' }, answer: ['collateralAsset'] },
  transfer: {
    path: '/api/v4/main-account/transfer',
    request: { ticker: 'ticker', amount: 'amount', from: 'from', to: 'to', method: 'method' },
    answer: [],
  },
} as const satisfies Readonly<Record<string, EndpointWire>>;
