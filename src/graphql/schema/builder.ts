import SchemaBuilder from '@pothos/core';
import DirectivesPlugin from '@pothos/plugin-directives';
import PrismaPlugin from '@pothos/plugin-prisma';
import type PrismaTypes from '../../generated/pothos-types.js';
import { getDatamodel } from '../../generated/pothos-types.js';
import type { GraphQLContext } from '../context.js';
import { DateTime } from './date-time.js';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    ID: { Input: string; Output: string };
  };
  Directives: {
    beta: { locations: 'FIELD_DEFINITION'; args: Record<string, never> };
    experimental: { locations: 'FIELD_DEFINITION'; args: Record<string, never> };
  };
}>({
  plugins: [PrismaPlugin, DirectivesPlugin],
  defaultFieldNullability: false,
  // Lets graphql-tools print the directives into the published SDL.
  directives: { useGraphQLToolsUnorderedDirectives: true },
  prisma: {
    client: (ctx) => ctx.domain.db,
    dmmf: getDatamodel(),
    onUnusedQuery: null,
  },
});

builder.addScalarType('DateTime', DateTime);
builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
