import type Redis from 'ioredis';
import type { Clock } from '../core/clock';
import { infoField } from './redis';

/** A primary answers again after the connection was lost. */
export interface PrimaryBack {
  /** From the lost connection to the next ready one. */
  readonly downMs: number;
  /** `host:port` of the primary now. */
  readonly address: string;
  /** Another server than before: a failover (another address), or the same address restarted (another run id). */
  readonly change: 'failover' | 'restart' | 'none';
}

export interface PrimaryWatchEvents {
  onLost(): void;
  onBack(back: PrimaryBack): void;
}

interface Identity {
  readonly address: string;
  readonly runId: string;
}

/**
 * Follows the one connection's primary (standalone, or found through Sentinel): when the connection is
 * lost and when a primary answers again, which it is. The daemon counts failovers and the time without
 * a primary from it, and reconciles at once when one is back (the journal may have lost writes the old
 * primary had acknowledged). A Cluster's shards fail over inside ioredis and are not followed here.
 */
export class RedisPrimaryWatch {
  private known: Identity | undefined;
  private lostAtMs: number | undefined;
  private readonly onClose = (): void => this.lost();
  private readonly onReady = (): void => { void this.ready(); };

  constructor(private readonly redis: Redis, private readonly clock: Clock, private readonly events: PrimaryWatchEvents) {}

  /** Reads the primary answering now (the connection is ready) and listens from here on. */
  async start(): Promise<void> {
    this.known = await this.identity();
    this.redis.on('close', this.onClose);
    this.redis.on('ready', this.onReady);
  }

  stop(): void {
    this.redis.off('close', this.onClose);
    this.redis.off('ready', this.onReady);
  }

  private lost(): void {
    if (this.lostAtMs !== undefined) return;
    this.lostAtMs = this.clock.nowMs();
    this.events.onLost();
  }

  private async ready(): Promise<void> {
    const since = this.lostAtMs;
    if (since === undefined) return;
    this.lostAtMs = undefined;
    const now = await this.identity().catch(() => undefined);
    const before = this.known;
    if (now !== undefined) this.known = now;
    const change = now === undefined || before === undefined ? 'none'
      : now.address !== before.address ? 'failover' : now.runId !== before.runId ? 'restart' : 'none';
    this.events.onBack({ downMs: this.clock.nowMs() - since, address: now?.address ?? 'unknown', change });
  }

  private async identity(): Promise<Identity> {
    const info = await this.redis.info('server');
    const runId = infoField(info, 'run_id') ?? '';
    const stream = this.redis.stream as { remoteAddress?: string; remotePort?: number } | undefined;
    return { address: `${stream?.remoteAddress ?? '?'}:${stream?.remotePort ?? '?'}`, runId };
  }
}
