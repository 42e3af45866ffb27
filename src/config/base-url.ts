/**
 * Which exchange URLs the daemon may send signed requests to. `https:` always; `http:` only to this
 * machine (the simulator on loopback), because a plain-HTTP hop elsewhere exposes the API key and
 * lets anyone on the path answer for the exchange. Nothing else (ftp:, file:, ws:, ...).
 * Returns why a URL is refused, or undefined when it is fine.
 */
export function baseUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol !== 'http:') return `must be an https: URL, not ${parsed.protocol}`;
  if (isLoopback(parsed.hostname)) return undefined;
  return `must be https: (plain http: is allowed only on loopback, for the simulator), got ${parsed.origin}`;
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * The same rule for the WebSocket API: `wss:` always, `ws:` only on loopback (a simulator's twin),
 * because the socket carries the authorize token and our order events.
 */
export function streamUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.protocol === 'wss:') return undefined;
  if (parsed.protocol !== 'ws:') return `must be a wss: URL, not ${parsed.protocol}`;
  if (isLoopback(parsed.hostname)) return undefined;
  return `must be wss: (plain ws: is allowed only on loopback, for the simulator), got ${parsed.host}`;
}
