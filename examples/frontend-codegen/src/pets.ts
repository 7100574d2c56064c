import type { TypedDocumentString } from './generated/graphql.js';
import { graphql } from './generated/index.js';

/** An operation of the app: codegen turns it into a typed document (result and variables). */
export const AvailablePets = graphql(`
  query AvailablePets($first: Int, $after: String) {
    pets(first: $first, after: $after, status: available) {
      totalCount
      edges { node { id name category { name } inventory { quantity } } }
      pageInfo { hasNextPage endCursor }
    }
  }
`);

/** Sends a typed document to the gateway; the result and the variables are checked by tsc. */
export async function execute<Result, Variables>(
  endpoint: string,
  document: TypedDocumentString<Result, Variables>,
  variables: Variables,
  token?: string,
): Promise<Result> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ query: document.toString(), variables }),
  });
  const body = (await response.json()) as { data?: Result; errors?: { message: string }[] };
  if (body.errors?.length || !body.data) {
    throw new Error(body.errors?.map((error) => error.message).join('; ') ?? 'no data');
  }
  return body.data;
}

/** Usage: the names of the first available pets, fully typed. */
export async function firstAvailablePetNames(endpoint: string): Promise<string[]> {
  const { pets } = await execute(endpoint, AvailablePets, { first: 5 });
  return pets.edges.map(({ node }) => `${node.name} (${node.category.name})`);
}
