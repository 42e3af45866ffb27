import pino from 'pino';
import { createLogger, componentLogger, withRequestId, type Logger } from '../src/log/logger';
import type { BenchRow } from './bench-types';

const ORDERS = 20_000;

/**
 * The lines one stop-limit submission writes through the executor and the HTTP client: intent
 * accepted, order journaled, request sent (debug), response (debug), order accepted, transition.
 * At level info the two debug lines are filtered, as in production.
 */
function submitOrder(executor: Logger, http: Logger, i: number): void {
  const clientOrderId = `tb-sma-BTC_USDT-1700000000-${i}`;
  const order = withRequestId(executor, clientOrderId);
  order.info({ strategy: 'sma-cross', market: 'BTC_USDT', side: 'buy', amount: '0.0015', price: '64250.5', activationPrice: '64200' }, 'intent accepted');
  order.info({ status: 'pending' }, 'order journaled');
  const req = withRequestId(http, clientOrderId);
  req.debug({ endpoint: 'stopLimit', headers: { 'X-TXC-APIKEY': 'key', 'X-TXC-PAYLOAD': 'payload', 'X-TXC-SIGNATURE': 'sig' } }, 'request sent');
  req.debug({ endpoint: 'stopLimit', status: 200, ms: 84 }, 'response received');
  order.info({ orderId: 4180284841 + i, from: 'submitted', to: 'open' }, 'order accepted');
}

function measure(log: Logger): number {
  const executor = componentLogger(log, 'executor');
  const http = componentLogger(log, 'exchange-http');
  for (let i = 0; i < 2000; i++) submitOrder(executor, http, i); // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ORDERS; i++) submitOrder(executor, http, i);
  return Number(process.hrtime.bigint() - t0) / 1e3 / ORDERS;
}

export async function run(): Promise<BenchRow[]> {
  const devNull = () => pino.destination({ dest: '/dev/null', sync: true });
  const info = measure(createLogger({ level: 'info', destination: devNull() }));
  const debug = measure(createLogger({ level: 'debug', destination: devNull() }));
  // Baseline without redact paths: what redaction costs on top.
  const plain = measure(pino({ level: 'info' }, devNull()));
  const note = `${ORDERS} orders, 3 info + 2 debug lines each, sync write to /dev/null`;
  return [
    { name: 'logging per submitted order (level info)', value: Number(info.toFixed(2)), unit: 'µs', note },
    { name: 'logging per submitted order (level debug)', value: Number(debug.toFixed(2)), unit: 'µs', note },
    { name: 'logging per submitted order (plain pino, no redaction, info)', value: Number(plain.toFixed(2)), unit: 'µs', note: 'baseline' },
  ];
}

if (require.main === module) {
  run().then((rows) => console.table(rows), (e: unknown) => { console.error(e); process.exitCode = 1; });
}
