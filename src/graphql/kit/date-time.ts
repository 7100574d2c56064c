import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { DateTimeResolver } from 'graphql-scalars';
import { DATE_TIME_RULE, parseDateTime } from '../../domain/validation.js';

function parse(value: unknown): Date {
  const date = typeof value === 'string' ? parseDateTime(value) : undefined;
  if (!date) throw new GraphQLError(`DateTime ${DATE_TIME_RULE}`);
  return date;
}

/**
 * graphql-scalars' DateTime (its description and output), reading its input with the domain's
 * date-time rule, so that GraphQL and REST accept and refuse exactly the same strings.
 */
export const DateTime = new GraphQLScalarType({
  ...DateTimeResolver.toConfig(),
  parseValue: parse,
  parseLiteral: (ast) => parse(ast.kind === Kind.STRING ? ast.value : undefined),
});
