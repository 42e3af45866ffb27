/**
 * How `tradebot reload|shadow|promote|rollback|strategy-resume` (another process) reach a running daemon, and where
 * the promoted version of each strategy is kept durably: Redis when the daemon has one (replicas
 * share it), else files in `strategies.stateDir` (paper without Redis: one daemon on this machine).
 */
export type ControlCommand = 'reload' | 'promote' | 'rollback' | 'resume' | 'cancel';
export const CONTROL_COMMANDS: readonly ControlCommand[] = ['reload', 'promote', 'rollback', 'resume', 'cancel'];

export interface ControlRequest {
  readonly id: string;
  readonly command: ControlCommand;
  /** Reload: only this strategy (undefined: every changed one). Promote/rollback/resume: required. */
  readonly strategy?: string | undefined;
  /** Cancel: the order (its journal client order id). The replica holding its lease cancels it. */
  readonly clientOrderId?: string | undefined;
  readonly atMs: number;
}

export interface ControlReply {
  readonly id: string;
  readonly ok: boolean;
  /** What was done, or why it was refused (the running version keeps trading). */
  readonly message: string;
  readonly atMs: number;
}

/** The version `tradebot promote|rollback` made live; what a restarted daemon and every replica run. */
export interface PromotedVersion {
  readonly version: string;
  readonly atMs: number;
  /** `reload`: the live version pinned when a reload first started a shadow (a restart keeps it live). */
  readonly by: 'promote' | 'rollback' | 'auto-promote' | 'reload';
}

export interface StrategyControlStore {
  /** Per strategy name, its promoted version (strategies never promoted are absent). */
  readPromoted(): Promise<Record<string, PromotedVersion>>;
  /** Durable before it resolves: a daemon killed right after still comes back with this version. */
  writePromoted(strategy: string, record: PromotedVersion): Promise<void>;
  putRequest(request: ControlRequest): Promise<void>;
  /** Removes and returns the requests waiting, oldest first. */
  takeRequests(): Promise<ControlRequest[]>;
  putReply(reply: ControlReply): Promise<void>;
  readReply(id: string): Promise<ControlReply | undefined>;
  /** The daemon's version status (JSON text) for `tradebot shadow`. */
  writeStatus(json: string): Promise<void>;
  readStatus(): Promise<string | undefined>;
}

/** A stored value read back: anything malformed is dropped (another process wrote it). */
export function parseRequest(text: string): ControlRequest | undefined {
  try {
    const v = JSON.parse(text) as Partial<ControlRequest>;
    if (typeof v.id !== 'string' || !CONTROL_COMMANDS.includes(v.command as ControlCommand)) return undefined;
    if (v.strategy !== undefined && typeof v.strategy !== 'string') return undefined;
    if (v.clientOrderId !== undefined && (typeof v.clientOrderId !== 'string' || v.clientOrderId.length > 200)) return undefined;
    return { id: v.id, command: v.command as ControlCommand, strategy: v.strategy, ...(v.clientOrderId === undefined ? {} : { clientOrderId: v.clientOrderId }), atMs: Number(v.atMs ?? 0) };
  } catch {
    return undefined;
  }
}

export function parsePromoted(text: string | undefined): PromotedVersion | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as Partial<PromotedVersion>;
    if (typeof v.version !== 'string' || !/^[0-9a-f]{6,64}$/.test(v.version)) return undefined;
    return { version: v.version, atMs: Number(v.atMs ?? 0), by: v.by === 'rollback' || v.by === 'auto-promote' || v.by === 'reload' ? v.by : 'promote' };
  } catch {
    return undefined;
  }
}
