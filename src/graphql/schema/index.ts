import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import {
  DirectiveLocation,
  GraphQLDirective,
  GraphQLNonNull,
  type GraphQLSchema,
  GraphQLString,
  specifiedDirectives,
} from 'graphql';
import { builder } from '../kit/builder.js';
import { costDirectives } from '../kit/cost-directives.js';
// Every resource's types and fields. The order of registering is the order of the published SDL
// (schema/schema.graphql): orders' types (imported by pets'), pets', categories', the stock's,
// then the change subscriptions.
import '../../categories/graphql.js';
import '../../inventory/graphql.js';
import '../../orders/graphql-changes.js';
import '../../pets/graphql-changes.js';

const stabilityDirectives = [
  new GraphQLDirective({
    name: 'beta',
    description: 'The field works and is supported, but its shape may still change.',
    locations: [DirectiveLocation.FIELD_DEFINITION],
  }),
  new GraphQLDirective({
    name: 'experimental',
    description: 'The field may change or disappear without notice.',
    locations: [DirectiveLocation.FIELD_DEFINITION],
  }),
  new GraphQLDirective({
    name: 'sunset',
    description:
      'When a deprecated element goes away (an RFC 3339 date, e.g. "2027-06-30"): the warnings of the operations that use it name the date.',
    args: { date: { type: new GraphQLNonNull(GraphQLString) } },
    locations: [
      DirectiveLocation.FIELD_DEFINITION,
      DirectiveLocation.ARGUMENT_DEFINITION,
      DirectiveLocation.INPUT_FIELD_DEFINITION,
      DirectiveLocation.ENUM_VALUE,
    ],
  }),
];

// graphql-js adds its specified directives (@include, @skip, @deprecated, @specifiedBy) only to a
// schema given no directives of its own. @defer and @stream are incremental delivery's
// (src/incremental/): graphql 16 does not specify them, the standard executor runs them.
export const schema: GraphQLSchema = builder.toSchema({
  directives: [
    ...specifiedDirectives,
    GraphQLDeferDirective,
    GraphQLStreamDirective,
    ...stabilityDirectives,
    ...costDirectives,
  ],
  sortSchema: false,
});
