import { Decimal } from './decimal';

/**
 * The switches of the simulator's fill model (FILL-MODEL.md, docs/simulator.md). The defaults are what
 * real markets do; each alternative exists to compare against an older, friendlier model.
 */
export interface FillModel {
  /**
   * Share (0 < share <= 1) of each 1m candle's traded volume (its `volume`, in the stock currency) that
   * the orders of a market may fill in that candle, together; what is left of an order waits for the
   * next candle. `null`: no volume limit, every fill is complete (the old model).
   */
  readonly volumeShare: Decimal | null;
  /**
   * When one leg of an OCO cancels the other: `execution` (its first deal, as the venue does) or
   * `trigger` (the old model: also as soon as the stop-loss merely triggers).
   */
  readonly ocoCancelOn: OcoCancelOn;
}

export type OcoCancelOn = 'execution' | 'trigger';
export const OCO_CANCEL_ON: readonly OcoCancelOn[] = ['execution', 'trigger'];

/** 10 % of a candle's volume: a resting order is rarely alone at its price level. */
export const DEFAULT_VOLUME_SHARE = '0.1';

export const DEFAULT_FILL_MODEL: FillModel = Object.freeze({ volumeShare: new Decimal(DEFAULT_VOLUME_SHARE), ocoCancelOn: 'execution' });

/** The settings as plain text (config files, CLI options, worker messages, reports). */
export interface FillModelText {
  /** A decimal in (0, 1], or `off`. */
  readonly volumeShare?: string | undefined;
  readonly ocoCancelOn?: string | undefined;
}

/**
 * Builds a FillModel from text settings (absent ones take the default). Returns the problem per field
 * instead of throwing, so each caller raises its own error class (ConfigError, BacktestInputError).
 */
export function parseFillModel(text: FillModelText): { ok: true; model: FillModel } | { ok: false; field: keyof FillModelText; reason: string } {
  let volumeShare = DEFAULT_FILL_MODEL.volumeShare;
  if (text.volumeShare !== undefined) {
    const v = text.volumeShare.trim();
    if (v === 'off') {
      volumeShare = null;
    } else {
      const share = /^(?:0?\.\d+|[01](?:\.\d*)?)$/.test(v) ? new Decimal(v) : undefined;
      if (share === undefined || share.lessThanOrEqualTo(0) || share.greaterThan(1)) {
        return { ok: false, field: 'volumeShare', reason: `must be a decimal share of the candle volume in (0, 1] or "off", got "${text.volumeShare}"` };
      }
      volumeShare = share;
    }
  }
  let ocoCancelOn = DEFAULT_FILL_MODEL.ocoCancelOn;
  if (text.ocoCancelOn !== undefined) {
    if (!(OCO_CANCEL_ON as readonly string[]).includes(text.ocoCancelOn)) {
      return { ok: false, field: 'ocoCancelOn', reason: `must be one of ${OCO_CANCEL_ON.join(', ')}, got "${text.ocoCancelOn}"` };
    }
    ocoCancelOn = text.ocoCancelOn as OcoCancelOn;
  }
  return { ok: true, model: { volumeShare, ocoCancelOn } };
}

/** The model as text, e.g. for a report's run settings: `{ volumeShare: '0.1', ocoCancelOn: 'execution' }`. */
export function fillModelText(model: FillModel): Required<FillModelText> {
  return { volumeShare: model.volumeShare === null ? 'off' : model.volumeShare.toString(), ocoCancelOn: model.ocoCancelOn };
}
