import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schemaUsage, variableCoordinates } from '../../src/graphql/plan/index.js';
import { schema } from '../../src/graphql/schema/index.js';

const usage = (document: string, operationName?: string) =>
  schemaUsage(schema, parse(document), operationName);

describe('the schema coordinates an operation uses', () => {
  it('lists types, fields, arguments and literal enum values, not built-in scalars or introspection', () => {
    expect(
      usage(
        `{ pets(first: 2, status: sold) { __typename totalCount edges { node { name orders { totalCount } } } } }`,
      ).coordinates,
    ).toEqual([
      'OrderConnection',
      'OrderConnection.totalCount',
      'Pet',
      'Pet.name',
      'Pet.orders',
      'PetConnection',
      'PetConnection.edges',
      'PetConnection.totalCount',
      'PetEdge',
      'PetEdge.node',
      'PetStatus',
      'PetStatus.sold',
      'Query',
      'Query.pets',
      'Query.pets(first:)',
      'Query.pets(status:)',
    ]);
  });

  it('follows fragments and inline fragments, and input objects written in the document', () => {
    const { coordinates } = usage(`
      mutation Add { createPet(input: { name: "Rex", categoryId: "1", status: pending }) { ...PetFields } }
      fragment PetFields on Pet { id ... on Pet { category { name } } }
    `);
    expect(coordinates).toEqual([
      'Category',
      'Category.name',
      'Mutation',
      'Mutation.createPet',
      'Mutation.createPet(input:)',
      'NewPet',
      'NewPet.categoryId',
      'NewPet.name',
      'NewPet.status',
      'Pet',
      'Pet.category',
      'Pet.id',
      'PetStatus',
      'PetStatus.pending',
    ]);
  });

  it('counts only the operation that runs, and is worked out once per document', () => {
    const document = parse('query A { categories { id } } query B { pet(id: "1") { name } }');
    const b = schemaUsage(schema, document, 'B');
    expect(b.coordinates).toEqual(['Pet', 'Pet.name', 'Query', 'Query.pet', 'Query.pet(id:)']);
    expect(schemaUsage(schema, document, 'B')).toBe(b);
    expect(schemaUsage(schema, document, 'A').coordinates).toEqual([
      'Category',
      'Category.id',
      'Query',
      'Query.categories',
    ]);
    expect(schemaUsage(schema, document, 'C').coordinates).toEqual([]);
  });

  it('reads enum values and input fields sent in variables from the values, ignoring what names nothing', () => {
    const add = usage(`
      mutation Add($input: NewPet!, $status: PetStatus = available) {
        createPet(input: $input) { id }
        updatePet(id: "1", input: { name: "Rex", categoryId: "1" }) { category { pets(status: $status) { totalCount } } }
      }
    `);
    // The default value is in the document: it is counted whatever the request sends.
    expect(add.coordinates).toContain('PetStatus.available');
    expect(add.coordinates).toContain('Mutation.createPet(input:)');
    expect(add.coordinates).not.toContain('NewPet.status');
    expect(add.variables.map((variable) => variable.name)).toEqual(['input', 'status']);
    expect(
      variableCoordinates(add, {
        input: { name: 'Rex', categoryId: '1', status: 'sold', nickname: 'x' },
        status: 'no-such-status',
      }).sort(),
    ).toEqual(['NewPet.categoryId', 'NewPet.name', 'NewPet.status', 'PetStatus.sold']);
    expect(variableCoordinates(usage('{ categories { id } }'), { anything: 1 })).toEqual([]);
  });

  it('reads lists of enum values, given literally or as variables', () => {
    const listSchema = buildSchema(`
      enum Color { red green blue }
      type Query { paint(colors: [Color!]!): Int }
    `);
    const literal = schemaUsage(listSchema, parse('{ paint(colors: [red, blue]) }'));
    expect(literal.coordinates).toEqual([
      'Color',
      'Color.blue',
      'Color.red',
      'Query',
      'Query.paint',
      'Query.paint(colors:)',
    ]);
    const variable = schemaUsage(listSchema, parse('query($c: [Color!]!) { paint(colors: $c) }'));
    expect(variableCoordinates(variable, { c: ['green', 'green'] })).toEqual(['Color.green']);
  });
});
