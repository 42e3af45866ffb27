import type { TrailingStopRecord, TrailingStore } from '../trailing-store-port';

/** The trailing-stop journal in process memory: backtests, and paper mode without Redis. */
export class InMemoryTrailingStore implements TrailingStore {
  private readonly records = new Map<string, TrailingStopRecord>();

  async put(record: TrailingStopRecord): Promise<void> {
    this.records.set(record.id, record);
  }

  async get(id: string): Promise<TrailingStopRecord | undefined> {
    return this.records.get(id);
  }

  async listActive(): Promise<TrailingStopRecord[]> {
    return [...this.records.values()].filter((r) => r.phase !== 'ended');
  }

  /** Every record, ended ones too (tests, reports). */
  all(): TrailingStopRecord[] {
    return [...this.records.values()];
  }
}
