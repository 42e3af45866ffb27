import { z } from 'zod';
import { errorAnswer } from './api-schemas';
import type { Route } from './routes';

type JsonSchema = Record<string, unknown>;

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect); `io` picks the request or answer side of defaults and coercions. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline' }) as JsonSchema;
  delete out['$schema'];
  return out;
}

/** Path and query parameters, one per property of the zod object. */
function parameters(where: 'path' | 'query', schema: z.ZodObject | undefined): JsonSchema[] {
  if (schema === undefined) return [];
  const json = schemaOf(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: s }));
}

const ERRORS: Readonly<Record<string, string>> = {
  400: 'the request is malformed (the answer names what is wrong)',
  401: 'no token, or one that matches none',
  403: 'the token\'s role may not do this (viewer tokens only read)',
  429: 'too many failed authentications from this address: wait a minute',
  503: 'the store (Redis) is unavailable',
};

/**
 * The console API's OpenAPI 3.1 document, generated from the route table: the same zod schemas the
 * handlers validate requests with and build answers to. Served at /api/v1/openapi.json.
 */
export function openApiDocument(routes: readonly Route[], version: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const error = { content: { 'application/json': { schema: schemaOf(errorAnswer, 'output') } } };
  for (const r of routes) {
    const responses: Record<string, unknown> = { 200: { description: 'OK', content: { 'application/json': { schema: schemaOf(r.answer, 'output') } } } };
    for (const [code, description] of Object.entries(ERRORS)) if (code !== '403' || r.role === 'operator') responses[code] = { description, ...error };
    (paths[r.path] ??= {})[r.method.toLowerCase()] = {
      summary: r.summary,
      operationId: `${r.method.toLowerCase()}${r.path.replace('/api/v1', '').replace(/\{(\w+)\}/g, 'By-$1').split(/[/-]/).map((p) => (p === '' ? '' : p[0]!.toUpperCase() + p.slice(1))).join('')}`,
      'x-required-role': r.role,
      parameters: [...parameters('path', r.params), ...parameters('query', r.query)],
      ...(r.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(r.body, 'input') } } } }),
      responses,
    };
  }
  paths['/api/v1/events'] = {
    get: {
      summary: 'live updates as Server-Sent Events: candle, order, fill, trading_state, strategy_paused, version_changed, drift (data: JSON)',
      operationId: 'getEvents', 'x-required-role': 'viewer', parameters: [],
      responses: { 200: { description: 'an event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, 401: { description: ERRORS[401], ...error } },
    },
  };
  return {
    openapi: '3.1.0',
    info: { title: 'tradebot console API', version, description: 'The operator\'s API of a tradebot daemon (docs/console.md). Every call needs `Authorization: Bearer <token>`.' },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
