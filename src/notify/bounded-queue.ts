/**
 * A FIFO of at most `capacity` items, O(1) on every path (a full queue under a burst is pushed into on
 * the producer's time). Pushing into a full queue drops the oldest item that is not `keep` (e.g. a
 * fill rather than a halt); when every queued item is kept, a new kept item drops the oldest and any
 * other new item is itself dropped. push() returns what was dropped: memory stays bounded whatever a dead receiver does, and the drop is the caller's to count.
 * Kept and other items wait in two lines numbered in one sequence, so shift() still gives the oldest.
 */
export class BoundedQueue<T> {
  private readonly kept = new Line<T>();
  private readonly others = new Line<T>();
  private seq = 0;

  constructor(private readonly capacity: number, private readonly keep: (item: T) => boolean = () => false) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`capacity must be a positive integer, got ${capacity}`);
  }

  get length(): number {
    return this.kept.length + this.others.length;
  }

  /** Adds `item`; returns the item dropped to make room, if any. */
  push(item: T): T | undefined {
    const keep = this.keep(item);
    let dropped: T | undefined;
    if (this.length >= this.capacity) {
      if (this.others.length === 0 && !keep) return item;
      dropped = (this.others.length > 0 ? this.others : this.kept).shift();
    }
    (keep ? this.kept : this.others).push(item, this.seq++);
    return dropped;
  }

  shift(): T | undefined {
    const k = this.kept.headSeq();
    const o = this.others.headSeq();
    if (k === undefined && o === undefined) return undefined;
    return (o === undefined || (k !== undefined && k < o) ? this.kept : this.others).shift();
  }

  /** Empties the queue, returning what it held (oldest first). */
  drain(): T[] {
    const out: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) out.push(item);
    return out;
  }
}

/** A FIFO over an array with a moving head, compacted once the dead half is large: O(1) amortised. */
class Line<T> {
  private items: (T | undefined)[] = [];
  private seqs: number[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T, seq: number): void {
    this.items.push(item);
    this.seqs.push(seq);
  }

  headSeq(): number | undefined {
    return this.head < this.items.length ? this.seqs[this.head] : undefined;
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head += 1;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.seqs = this.seqs.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}
