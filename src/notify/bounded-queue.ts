/**
 * A FIFO of at most `capacity` items. Pushing into a full queue drops the oldest item that is not
 * `keep` (e.g. a fill before a halt), or the oldest of all when every item must be kept, and returns
 * what was dropped: memory stays bounded whatever a dead receiver does, and the drop is the caller's
 * to count.
 */
export class BoundedQueue<T> {
  private readonly items: T[] = [];

  constructor(private readonly capacity: number, private readonly keep: (item: T) => boolean = () => false) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`capacity must be a positive integer, got ${capacity}`);
  }

  get length(): number {
    return this.items.length;
  }

  /** Adds `item`; returns the item dropped to make room, if any. */
  push(item: T): T | undefined {
    let dropped: T | undefined;
    if (this.items.length >= this.capacity) {
      const at = this.items.findIndex((i) => !this.keep(i));
      dropped = this.items.splice(at < 0 ? 0 : at, 1)[0];
    }
    this.items.push(item);
    return dropped;
  }

  shift(): T | undefined {
    return this.items.shift();
  }

  /** Empties the queue, returning what it held (oldest first). */
  drain(): T[] {
    return this.items.splice(0, this.items.length);
  }
}
