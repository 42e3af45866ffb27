import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy in front of the simulated exchange that counts what the exchange answered:
 * 429s (with the venue's `Too many requests.` body: a refused nonce, or the rate limit) and all
 * answers by status. It lives in the test process, so its counts survive the child's SIGKILLs.
 * Dropped upstream connections (the simulator's lost-answer / timeout faults) are passed on as drops.
 */
export interface CountingProxy {
  readonly url: string;
  readonly counts: { total: number; status429: number; byStatus: Record<number, number> };
  close(): Promise<void>;
}

export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const counts = { total: 0, status429: 0, byStatus: {} as Record<number, number> };
  const server: Server = createServer((req, res) => {
    const out = request({
      host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers,
    }, (answer) => {
      const status = answer.statusCode ?? 0;
      counts.total += 1;
      counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
      if (status === 429) counts.status429 += 1;
      res.writeHead(status, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.socket?.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
