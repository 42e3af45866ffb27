import type { EngineEvent } from './types';

/**
 * Delivers engine events to listeners and collects the events of one operation (a candle, a timer
 * run) so it can return them. Only open collections keep events: nothing piles up over a long run.
 */
export class EngineEvents {
  private readonly listeners: ((event: EngineEvent) => void)[] = [];
  private readonly frames: EngineEvent[][] = [];

  on(listener: (event: EngineEvent) => void): void {
    this.listeners.push(listener);
  }

  emit(event: EngineEvent): void {
    this.frames[this.frames.length - 1]?.push(event);
    for (const listener of this.listeners) listener(event);
  }

  /** Runs `work` and returns the events it emitted (also passed on to an enclosing collection). */
  collect(work: () => void): EngineEvent[] {
    const frame: EngineEvent[] = [];
    this.frames.push(frame);
    try {
      work();
    } finally {
      this.frames.pop();
      this.frames[this.frames.length - 1]?.push(...frame);
    }
    return frame;
  }
}
