import { parseSimOptions } from '../../../src/cli/sim-exchange-command';
import { ConfigError } from '../../../src/domain/errors';

const base = { port: '0', host: '127.0.0.1', apiKey: 'k', market: [], speed: '0', seed: '1', rateLimits: true, dialect: 'venue', unknownFields: 'refuse', ocoLegIds: 'empty', region: 'global' };
/** The secret comes from the environment (or a file), never from the command line. */
const env = { TRADEBOT_SIM_API_SECRET: 's' };

describe('sim-exchange: collateral funding and fill model flags', () => {
  test('the collateral account is funded only by --collateral-balance; the fill model defaults to the real behaviour', () => {
    const plain = parseSimOptions({ ...base, balance: 'USDT=10000,BTC=1' }, env);
    expect([plain.balances, plain.collateralBalances]).toEqual([{ USDT: '10000', BTC: '1' }, {}]);
    expect([plain.fillModel?.volumeShare?.toString(), plain.fillModel?.ocoCancelOn]).toEqual(['0.1', 'execution']);
    const funded = parseSimOptions({ ...base, collateralBalance: 'USDT=5000', fillVolumeShare: 'off', ocoCancelOn: 'trigger' }, env);
    expect([funded.collateralBalances, funded.fillModel?.volumeShare, funded.fillModel?.ocoCancelOn]).toEqual([{ USDT: '5000' }, null, 'trigger']);
  });

  test('bad values name the flag', () => {
    expect(() => parseSimOptions({ ...base, collateralBalance: 'USDT:5' }, env)).toThrow(new ConfigError('--collateral-balance: "USDT:5" should look like USDT=10000'));
    expect(() => parseSimOptions({ ...base, fillVolumeShare: '0' }, env)).toThrow(/--fill-volume-share must be a decimal share/);
    expect(() => parseSimOptions({ ...base, ocoCancelOn: 'fill' }, env)).toThrow(/--oco-cancel-on must be one of execution, trigger/);
    expect(() => parseSimOptions({ ...base, ocoLegIds: 'same' }, env)).toThrow(new ConfigError('--oco-leg-ids: "same" is not one of echo, empty'));
  });

  test('OCO legs carry no client order id by default, as the venue documents; echo on request', () => {
    expect(parseSimOptions(base, env).ocoLegIds).toBe('empty');
    expect(parseSimOptions({ ...base, ocoLegIds: 'echo' }, env).ocoLegIds).toBe('echo');
  });
});

describe('sim-exchange: WebSocket flags', () => {
  test('defaults: no WebSocket fault, documented timings left to the simulator', () => {
    expect(parseSimOptions(base, env).ws).toEqual({ faults: {} });
  });

  test('each flag reaches the WebSocket options; bad values are refused naming the flag', () => {
    const opts = parseSimOptions({
      ...base, wsIdleTimeoutMs: '5000', wsTokenTtlMs: '1000', wsSilent: true, wsPushDelayMs: '250', wsDuplicatePushes: true, wsDropEveryMs: '30000',
    }, env);
    expect(opts.ws).toEqual({
      idleTimeoutMs: 5000, tokenTtlMs: 1000, faults: { silent: true, duplicatePushes: true, pushDelayMs: 250, dropEveryMs: 30_000 },
    });
    expect(() => parseSimOptions({ ...base, wsPushDelayMs: 'soon' }, env)).toThrow(/--ws-push-delay-ms/);
    expect(() => parseSimOptions({ ...base, wsIdleTimeoutMs: '0' }, env)).toThrow(new ConfigError('--ws-idle-timeout-ms: "0" must be at least 1'));
  });
});
