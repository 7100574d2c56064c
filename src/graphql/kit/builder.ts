import SchemaBuilder from '@pothos/core';
import DirectivesPlugin from '@pothos/plugin-directives';
import PrismaPlugin from '@pothos/plugin-prisma';
import type { Db } from '../../db/client.js';
import type PrismaTypes from '../../generated/pothos-types.js';
import { getDatamodel } from '../../generated/pothos-types.js';
import type { GraphQLContext } from './context.js';
import { DateTime } from './date-time.js';

/**
 * The schema builder. @pothos/plugin-prisma gives the object types their Prisma model shapes
 * (`builder.prismaObject`: every resolver is typed against the row it gets) and the data model's
 * relations as types. Its query planning (`t.relation`, `t.relatedConnection`) is not used: it
 * selects relations per request, while the loaders (src/graphql/loaders.ts) batch a level into
 * one statement, coalesce the public by-id reads of concurrent requests on both edges
 * (src/db/shared-reads.ts) and page each parent's children in one windowed statement, which the
 * bench and the statement-count tests hold it to. So a relation (Pet.category, Order.pet, ...) is
 * a plain field of the resource that owns it, reading through the loaders.
 */
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
    // When a deprecated element goes away (src/warnings/graphql.ts names it in its warnings).
    sunset: {
      locations:
        | 'FIELD_DEFINITION'
        | 'ARGUMENT_DEFINITION'
        | 'INPUT_FIELD_DEFINITION'
        | 'ENUM_VALUE';
      args: { date: string };
    };
    // The IBM GraphQL Cost Directives (cost-directives.ts).
    cost: {
      locations: 'FIELD_DEFINITION' | 'OBJECT' | 'ARGUMENT_DEFINITION' | 'SCALAR' | 'ENUM';
      args: { weight: string };
    };
    listSize: {
      locations: 'FIELD_DEFINITION';
      args: {
        assumedSize?: number;
        slicingArguments?: readonly string[];
        sizedFields?: readonly string[];
        requireOneSlicingArgument?: boolean;
      };
    };
  };
}>({
  plugins: [PrismaPlugin, DirectivesPlugin],
  defaultFieldNullability: false,
  // Lets graphql-tools print the directives into the published SDL.
  directives: { useGraphQLToolsUnorderedDirectives: true },
  prisma: {
    // Never queried through (see above); a transaction's client has the same model delegates.
    client: (ctx) => ctx.domain.db as Db,
    dmmf: getDatamodel(),
    onUnusedQuery: null,
  },
});

builder.addScalarType('DateTime', DateTime);
builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
