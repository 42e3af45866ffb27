/**
 * Strict strategy parameters: zod objects drop keys they do not know without a word, so a typo in a
 * config file or on the command line (`fsat: 5`) would silently run the default. These helpers read
 * the keys a params schema declares and name the first key of the input it does not.
 *
 * Schemas are read structurally (a module may bring its own copy of zod): zod 4 (`_zod.def`) and
 * zod 3 (`_def`) objects, through the wrappers that keep an object's keys (refine, transform,
 * preprocess, default, prefault, optional, nullable, readonly, catch, intersections). A schema that
 * is not an object, or an object that accepts any key on purpose (`z.looseObject`, `.passthrough()`,
 * a catch-all), is not checked.
 */

interface Def {
  readonly type?: string;
  readonly typeName?: string;
  readonly shape?: unknown;
  readonly catchall?: unknown;
  readonly unknownKeys?: string;
  readonly innerType?: unknown;
  readonly schema?: unknown;
  readonly in?: unknown;
  readonly out?: unknown;
  readonly left?: unknown;
  readonly right?: unknown;
}

/** The definition of a zod 4 or zod 3 schema, or undefined for anything else. */
function defOf(schema: unknown): Def | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const s = schema as { _zod?: { def?: Def }; _def?: Def };
  return s._zod?.def ?? s._def;
}

function kind(def: Def): string {
  return def.type ?? (def.typeName ?? '').replace(/^Zod/, '').toLowerCase();
}

/** The key -> schema map of an object schema that refuses unknown keys; undefined when keys are open or unknowable. */
export function declaredShape(schema: unknown, depth = 0): Readonly<Record<string, unknown>> | undefined {
  const def = defOf(schema);
  if (def === undefined || depth > 20) return undefined;
  switch (kind(def)) {
    case 'object': {
      if (!closedObject(def)) return undefined;
      const shape = typeof def.shape === 'function' ? (def.shape as () => unknown)() : def.shape;
      return shape !== null && typeof shape === 'object' ? (shape as Record<string, unknown>) : undefined;
    }
    case 'pipe':
    case 'pipeline': {
      // z.preprocess(fn, object) is a pipe from a transform into the object: its keys are the object's.
      return declaredShape(def.in, depth + 1) ?? (kind(defOf(def.in) ?? {}) === 'transform' ? declaredShape(def.out, depth + 1) : undefined);
    }
    case 'effects':
      return declaredShape(def.schema, depth + 1);
    case 'default': case 'prefault': case 'optional': case 'nullable': case 'readonly': case 'catch': case 'nonoptional':
      return declaredShape(def.innerType, depth + 1);
    case 'intersection': {
      const left = declaredShape(def.left, depth + 1);
      const right = declaredShape(def.right, depth + 1);
      return left === undefined || right === undefined ? undefined : { ...left, ...right };
    }
    default:
      return undefined;
  }
}

function closedObject(def: Def): boolean {
  // zod 3 keeps the policy in unknownKeys ('strip' | 'strict' | 'passthrough'), zod 4 in a catch-all schema.
  if (def.unknownKeys === 'passthrough') return false;
  const catchall = defOf(def.catchall);
  return catchall === undefined || kind(catchall) === 'never';
}

export interface UnknownParam {
  /** Dotted path of the unknown key, e.g. `fsat` or `risk.maxx`. */
  readonly path: string;
  /** The keys declared at that level, in declaration order. */
  readonly known: readonly string[];
}

/**
 * The first key of `input` (recursively into nested object parameters) that `schema` does not
 * declare, with the declared keys at that level; undefined when every key is known or the schema's
 * keys cannot be read.
 */
export function findUnknownParam(schema: unknown, input: unknown, prefix = ''): UnknownParam | undefined {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return undefined;
  const shape = declaredShape(schema);
  if (shape === undefined) return undefined;
  const known = Object.keys(shape);
  for (const key of Object.keys(input)) {
    if (!Object.prototype.hasOwnProperty.call(shape, key)) return { path: `${prefix}${key}`, known };
    const nested = findUnknownParam(shape[key], (input as Record<string, unknown>)[key], `${prefix}${key}.`);
    if (nested !== undefined) return nested;
  }
  return undefined;
}
