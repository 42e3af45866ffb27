import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * docs/architecture.md draws the layers the build enforces (`LAYERS` in .dependency-cruiser.cjs), and
 * the folders of src/ are exactly those layers: the picture a newcomer reads cannot drift from the rules.
 */

const ROOT = path.resolve(__dirname, '../../..');

interface LayerRule {
  readonly name: string;
  readonly from: { readonly path: string };
  readonly to: { readonly path: readonly string[] };
}

/** Rooms of one layer as a sorted list, so peers compare regardless of their order on the line. */
type Layer = readonly string[];

const folderOf = (pattern: string): string => /^\^src\/([a-z-]+)\/$/.exec(pattern)?.[1] ?? '';

/**
 * The enforced layers, ground up, read back from the rules the config generates (one `layer-<room>`
 * rule per room, row by row): a room shares the previous room's row exactly when it may not import
 * it (a room may always import the rows below its own).
 */
function enforcedLayers(): Layer[] {
  const config = require(path.join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: readonly LayerRule[] };
  const rules = config.forbidden.filter((rule) => rule.name.startsWith('layer-'));
  const rows: string[][] = [];
  for (const rule of rules) {
    const room = folderOf(rule.from.path);
    const forbidden = rule.to.path.map(folderOf);
    const row = rows.at(-1);
    const previous = row?.at(-1);
    if (row !== undefined && previous !== undefined && forbidden.includes(previous)) row.push(room);
    else rows.push([room]);
  }
  return rows.map((row) => [...row].sort());
}

/**
 * The layers of the picture under "The house, from the ground up", ground up: each line that starts
 * with one space and room names (`domain/ core/`) is one layer; deeper-indented lines continue it.
 */
function documentedLayers(): Layer[] {
  const doc = readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.split('## The house, from the ground up')[1];
  if (section === undefined) throw new Error('docs/architecture.md has no "The house, from the ground up" section');
  const picture = /```\n([\s\S]*?)```/.exec(section)?.[1];
  if (picture === undefined) throw new Error('the house section of docs/architecture.md has no picture (a ``` block)');
  const rows = picture
    .split('\n')
    .map((line) => /^ ((?:[a-z-]+\/ +)+)/.exec(line)?.[1])
    .filter((rooms): rooms is string => rooms !== undefined)
    .map((rooms) => rooms.trim().split(/ +/).map((room) => room.replace(/\/$/, '')).sort());
  return rows.reverse();
}

describe('the layers', () => {
  it('are read from the enforced table: the ground floor first, peers on one row', () => {
    const layers = enforcedLayers();
    expect(layers[0]).toEqual(['core', 'domain']);
    expect(layers[layers.length - 1]).toEqual(['cli']);
  });

  it('docs/architecture.md draws exactly the enforced layers, in their order', () => {
    expect(documentedLayers()).toEqual(enforcedLayers());
  });

  it('every folder of src/ is a layer room, and every room a folder', () => {
    const folders = readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(enforcedLayers().flat().sort()).toEqual(folders);
  });
});
