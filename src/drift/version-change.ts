import type { RecordedVersion } from '../store/deployment-log-port';
import type { Unclassified } from './classify-difference';

/**
 * Live ran another version (or other parameters) than the replay for this intent: the journal's own
 * identity of a live order, else the version recorded live when its candle closed (reload, promote,
 * rollback, a restart with changed code).
 */
export function versionChangeOf(replayVersion: string, replayParams: string | undefined, recorded: readonly RecordedVersion[], step: number): (d: Unclassified) => string | undefined {
  return (d) => {
    const live = d.live;
    if (live?.version !== undefined && live.version !== replayVersion) return `placed live by version ${live.version}; the replay ran ${replayVersion}`;
    if (live?.params !== undefined && replayParams !== undefined && live.params !== replayParams) return `placed live with parameters ${live.params}; the replay ran ${replayParams}`;
    if (live?.version !== undefined) return undefined; // the journal knows what placed it
    const closeMs = (d.candleTime + step) * 1000;
    const then = [...recorded].reverse().find((v) => v.marketMs <= closeMs);
    if (then !== undefined && then.version !== replayVersion) return `version ${then.version} was live when this candle closed; the replay ran ${replayVersion}`;
    return undefined;
  };
}
