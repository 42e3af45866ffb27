import * as path from 'node:path';

/** `    at fn (/abs/file.ts:19:11)` or `    at /abs/file.ts:19:11` (V8's stack lines). */
const FRAME = /^\s*at (?:.*? \()?(?:file:\/\/)?(.+?):(\d+):(\d+)\)?\s*$/;

/**
 * The first frame of `stack` inside the strategy directory `dir`, as `file:line:column` with the file
 * relative to `dir` (e.g. `oops.ts:19:11`): where the author's own code threw. The module evaluator
 * keeps every line where it was and names the code by its file (sourceURL), so the frame is exact.
 * Undefined when no frame is in `dir` (a throw from a library, a thrown non-Error).
 */
export function strategyFrame(stack: unknown, dir: string): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const root = path.resolve(dir) + path.sep;
  for (const line of stack.split('\n')) {
    const m = FRAME.exec(line);
    if (m === null) continue;
    const file = m[1] as string;
    if (!path.isAbsolute(file) || !path.resolve(file).startsWith(root)) continue;
    return `${path.relative(root, path.resolve(file)).split(path.sep).join('/')}:${m[2]}:${m[3]}`;
  }
  return undefined;
}
