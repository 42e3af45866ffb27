import Redis from 'ioredis';
import { DaemonProcess, paperConfig, requireBuild, runCli, writeConfig } from './daemon-process';

/**
 * One test file's paper daemons on the test Redis (Jest hooks registered by the constructor): a paper
 * config file (paperConfig), a key prefix of its own whose keys are deleted after the file, and every
 * daemon started through `run` SIGKILLed after each test if it still runs.
 */
export class PaperRedisSuite {
  readonly prefix: string;
  readonly env: NodeJS.ProcessEnv;
  private config: ReturnType<typeof writeConfig> | undefined;
  private client: Redis | undefined;
  private readonly daemons: DaemonProcess[] = [];

  /** `config`: overrides of paperConfig for this file's daemons. */
  constructor(name: string, config: Record<string, unknown> = {}) {
    this.prefix = `tbtest-app-${name}-${process.pid}-${Date.now()}`;
    this.env = { TRADEBOT_REDIS_URL: process.env['TRADEBOT_TEST_REDIS_URL']!, TRADEBOT_REDIS_PREFIX: this.prefix };
    beforeAll(() => {
      requireBuild();
      this.config = writeConfig(paperConfig(config));
      this.client = new Redis(this.env['TRADEBOT_REDIS_URL']!);
    });
    afterEach(async () => {
      for (const d of this.daemons.splice(0)) await d.kill();
    });
    afterAll(async () => {
      const keys = await this.redis.keys(`${this.prefix}:*`);
      if (keys.length > 0) await this.redis.del(...keys);
      await this.redis.quit();
      this.config?.cleanup();
    });
  }

  get file(): string {
    return this.config!.file;
  }

  get redis(): Redis {
    return this.client!;
  }

  /** `tradebot run` on the suite's config and Redis, with `env` on top. */
  run(env: NodeJS.ProcessEnv = {}, opts: ConstructorParameters<typeof DaemonProcess>[2] = {}): DaemonProcess {
    const d = new DaemonProcess(['run', '--config', this.file], { ...this.env, ...env }, opts);
    this.daemons.push(d);
    return d;
  }

  /** `tradebot orders --json`: the journal, newest first. */
  journal<Row>(limit = 1000): Row[] {
    const r = runCli(['orders', '--json', '--limit', String(limit), '--config', this.file], this.env);
    if (r.code !== 0) throw new Error(`orders failed (${r.code}): ${r.stderr}`);
    return JSON.parse(r.stdout) as Row[];
  }
}
