import { ConfigError } from '../../domain/errors';
import type { WireEndpointId } from '../http/endpoints';
import { DIALECT_NAMES, type Dialect, type DialectName } from './dialect';
import { SPEC_DIALECT } from './spec-dialect';
import { VENUE_DIALECT } from './venue-dialect';

export const DIALECTS: Readonly<Record<DialectName, Dialect>> = { venue: VENUE_DIALECT, spec: SPEC_DIALECT };

export function dialectNamed(name: string): Dialect {
  if (!(DIALECT_NAMES as readonly string[]).includes(name)) {
    throw new ConfigError(`unknown wire dialect "${name}"; one of: ${DIALECT_NAMES.join(', ')}`, { path: 'dialect' });
  }
  return DIALECTS[name as DialectName];
}

/** The endpoint a dialect serves at `method path`, if any. */
export function endpointAt(dialect: Dialect, path: string): WireEndpointId | undefined {
  for (const [id, wire] of Object.entries(dialect.endpoints)) if (wire.path === path) return id as WireEndpointId;
  return undefined;
}
