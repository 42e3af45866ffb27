import type { z } from 'zod';
import type { Dialect } from './dialects';
import type { AnswerOf, EndpointId } from './endpoints';
import { answersOf, type AnswerSchemas } from './responses';

/**
 * The schema `endpoint`'s answer is read with in `dialect`: the one the endpoint table names, under the
 * dialect's spelling (every schema of a dialect is built on first use). Kept apart from dialects.ts so
 * that naming a dialect (config, CLI) does not load the answer schemas.
 */
export function answerSchema<E extends EndpointId>(dialect: Dialect, endpoint: E): AnswerSchemas[AnswerOf<E>] {
  return answersOf(dialect.shapes)[dialect.endpoints[endpoint].answer as AnswerOf<E>];
}

export type ResponseOf<E extends EndpointId> = z.output<AnswerSchemas[AnswerOf<E>]>;
