import { randomUUID } from 'node:crypto';
import type { ControlCommand, ControlReply, StrategyControlStore } from '../strategy-control/control-store';

export interface StrategyRequestOutcome {
  /** Undefined: no daemon answered in time (the request stays queued). */
  readonly ok: boolean | undefined;
  readonly text: string;
}

/**
 * Queues a request where the daemon reads it every second (its Redis or, without Redis, the files
 * under strategies.stateDir) and waits for the daemon's answer: what it applied, or why not. The one
 * way the CLI and the console reload, promote, roll back, resume a strategy or cancel an order.
 */
export async function requestStrategyChange(
  store: StrategyControlStore,
  r: { readonly command: ControlCommand; readonly strategy?: string | undefined; readonly clientOrderId?: string | undefined; readonly timeoutMs: number },
): Promise<StrategyRequestOutcome> {
  const id = `${Date.now().toString(36)}-${randomUUID().slice(0, 8)}`;
  await store.putRequest({ id, command: r.command, strategy: r.strategy, ...(r.clientOrderId === undefined ? {} : { clientOrderId: r.clientOrderId }), atMs: Date.now() });
  const reply = await waitForReply(store, id, r.timeoutMs);
  if (reply === undefined) return { ok: undefined, text: `no answer from the daemon within ${r.timeoutMs / 1000} s (is it running with this config? the request stays queued)` };
  return { ok: reply.ok, text: reply.message };
}

async function waitForReply(store: StrategyControlStore, id: string, timeoutMs: number): Promise<ControlReply | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const reply = await store.readReply(id);
    if (reply !== undefined) return reply;
    await new Promise((r) => setTimeout(r, 200));
  }
  return undefined;
}
