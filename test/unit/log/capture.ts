import { Writable } from 'node:stream';

/** A destination stream that keeps every line written, for asserting on real logger output. */
export class CaptureStream extends Writable {
  private chunks: string[] = [];

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk.toString());
    callback();
  }

  text(): string {
    return this.chunks.join('');
  }

  lines(): Record<string, unknown>[] {
    return this.text().split('\n').filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}
