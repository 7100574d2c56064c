import { DirectiveLocation, GraphQLDirective, type GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import { costDirectives } from './cost-directives.js';
import './category.js';
import './inventory.js';
import './order.js';
import './order-change.js';
import './pet.js';
import './pet-change.js';
import './relations.js';

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
];

export const schema: GraphQLSchema = builder.toSchema({
  directives: [...stabilityDirectives, ...costDirectives],
  sortSchema: false,
});
