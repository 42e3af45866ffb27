import type { Registry } from 'prom-client';
import type { Clock } from '../core/clock';
import type { DaemonEventBus } from '../domain/daemon-event';
import type { FrozenConfig } from '../config/load';
import type { JobScheduler } from '../jobs/scheduler';
import type { Logger } from '../log/logger';
import type { Metrics } from '../metrics/registry';

export interface AppInput {
  readonly config: FrozenConfig;
  /** Relative paths of the config (candle files, strategy dir) resolve against it. */
  readonly baseDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** Injected, never prom-client's global registry. */
  readonly registry: Registry;
  readonly version?: string;
  /** The config file (re-read by `tradebot reload`; the daemon ignores SIGHUP). */
  readonly configFile?: string | undefined;
}

/** What every part of the daemon is built with: build-app.ts makes one and hands it to each part in turn. */
export interface DaemonContext extends Pick<AppInput, 'config' | 'baseDir' | 'env' | 'configFile'> {
  readonly log: Logger;
  readonly metrics: Metrics;
  /** Real time: request timing, nonces, in-flight windows, lease TTLs, metric stamps. */
  readonly wallClock: Clock;
  /** The market clock as parts built before the exchange (metrics, the journal) read it: whichever it is by then. */
  readonly marketNow: Clock;
  /** Hears every Redis error (false) and each successful connect or health check (true). */
  readonly onRedisUp: (up: boolean) => void;
  /** Parts register what they opened; stop() closes it in reverse order, after the schedulers and the executor. */
  readonly closers: { readonly name: string; close(): Promise<unknown> }[];
  /** Parts register their schedulers; stop() stops them first. */
  readonly schedulers: JobScheduler[];
  /**
   * A part that cannot go on (a connection that ended for good) says so: the daemon exits 1 so its
   * supervisor restarts it, rather than running half-blind.
   */
  readonly fail: (error: Error) => void;
  /** What people hear about (notifications) and see move (the console's live page). */
  readonly events: DaemonEventBus;
}
