import {
  DirectiveLocation,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLString,
} from 'graphql';
import { DEFAULT_PAGE_SIZE } from '../../domain/paging.js';

/**
 * The IBM GraphQL Cost Directives, printed into the published SDL so that a client or a gateway
 * computes the same estimate as the server (src/graphql/plan/cost.ts, docs/demand-control.md).
 */
export const costDirectives = [
  new GraphQLDirective({
    name: 'cost',
    description:
      'The weight of a field (or of every field of a type, or of an argument when it is given) in ' +
      'the cost of a request. Without one, a field of an object type weighs 1 and a scalar or ' +
      'enum field 0.',
    locations: [
      DirectiveLocation.ARGUMENT_DEFINITION,
      DirectiveLocation.ENUM,
      DirectiveLocation.FIELD_DEFINITION,
      DirectiveLocation.INPUT_FIELD_DEFINITION,
      DirectiveLocation.OBJECT,
      DirectiveLocation.SCALAR,
    ],
    args: { weight: { type: new GraphQLNonNull(GraphQLString) } },
  }),
  new GraphQLDirective({
    name: 'listSize',
    description:
      'How many items a list holds, for the cost of a request: the value of a slicing argument, ' +
      'else the assumed size. With sizedFields, the size applies to those fields of the result ' +
      '(a connection sizes its edges).',
    locations: [DirectiveLocation.FIELD_DEFINITION],
    args: {
      assumedSize: { type: GraphQLInt },
      slicingArguments: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
      sizedFields: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
      requireOneSlicingArgument: { type: GraphQLBoolean, defaultValue: true },
    },
  }),
];

/** On every connection field: `first` sizes its edges; without it, a page of the default size. */
export const connectionCost = {
  listSize: {
    assumedSize: DEFAULT_PAGE_SIZE,
    slicingArguments: ['first'],
    sizedFields: ['edges'],
    requireOneSlicingArgument: false,
  },
} as const;

/** A write: a transaction, and the change events it publishes. */
export const mutationCost = { cost: { weight: '10' } } as const;

/** A count: a statement of its own. */
export const countCost = { cost: { weight: '1' } } as const;
