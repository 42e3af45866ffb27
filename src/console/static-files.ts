import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface StaticFile {
  readonly type: string;
  readonly body: Buffer;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png',
};

/**
 * The page's files, read once at start: `src/console/page/*` (tsc does not copy them to dist/, so
 * like the Lua scripts they are found by walking up to the package root; the Dockerfile copies the
 * folder) and uPlot's built files from node_modules. Served by name only: no path from a request
 * ever reaches the file system.
 */
export function loadStaticFiles(start: string = __dirname): ReadonlyMap<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const dir = findPageDir(start);
  const names = existsSync(dir) ? readdirSync(dir) : [];
  for (const name of names) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (type !== undefined && /^[a-z0-9._-]+$/.test(name)) files.set(`/${name === 'index.html' ? '' : name}`, { type, body: readFileSync(join(dir, name)) });
  }
  for (const [url, module, type] of [['/assets/uplot.js', 'uplot/dist/uPlot.iife.min.js', TYPES['.js']!], ['/assets/uplot.css', 'uplot/dist/uPlot.min.css', TYPES['.css']!]] as const) {
    try {
      files.set(url, { type, body: readFileSync(require.resolve(module)) });
    } catch {
      // not installed: the page draws no chart and says so
    }
  }
  return files;
}

function findPageDir(start: string): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'src', 'console', 'page');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return join(start, 'page');
    dir = parent;
  }
}
