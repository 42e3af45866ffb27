import { ConfigError } from '../domain/errors';

/**
 * The order types tradebot places (stop-limit and OCO) are not offered in the venue's EU region: it
 * refuses them with HTTP 453 `This order type is not available` (venue docs, concepts/order-types,
 * "Regional restrictions": EU spot has market, IOC limit and stop-market only, and no margin, so no
 * OCO). A live daemon whose orders go to the EU server could place nothing, so it is refused at
 * start-up, before any request. Reads may still fail over to `exchange.euBaseUrl`.
 *
 * Why a config check and no probe: the venue documents no side-effect-free way to ask which order
 * types an account may place, and a deliberately invalid order is no safe probe (whether the venue
 * checks the region before or after the parameters is not documented). Any other 453 (an account
 * restricted by region behind the global URL, a market not yet listed) is caught on the first order:
 * the daemon halts with a message saying so (src/execution/orders/order-sender.ts, OrderTypeRefused).
 */
export function orderRegionError(config: {
  readonly mode: string;
  readonly exchange: { readonly baseUrl: string; readonly primaryRegion: 'global' | 'eu' };
}, file: string): ConfigError | undefined {
  if (config.mode !== 'live') return undefined;
  const why = 'the venue\'s EU region does not offer stop-limit or OCO orders (HTTP 453 "This order type is not available"), '
    + 'the only orders tradebot places, so it could trade nothing there';
  if (config.exchange.primaryRegion === 'eu') {
    return new ConfigError(`${file}: exchange.primaryRegion: "eu": ${why}; use the global server (reads may still fail over to exchange.euBaseUrl)`, {
      file, path: 'exchange.primaryRegion',
    });
  }
  const host = new URL(config.exchange.baseUrl).hostname;
  if (host === 'whitebit.eu' || host.endsWith('.whitebit.eu')) {
    return new ConfigError(`${file}: exchange.baseUrl: ${host} is the EU server: ${why}`, { file, path: 'exchange.baseUrl' });
  }
  return undefined;
}
