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

type GraphQLBody<Result> = {
  data?: Result;
  errors?: { message: string; extensions?: { code?: string } }[];
};

async function post<Result>(
  endpoint: string,
  body: Record<string, unknown>,
  token?: string,
): Promise<GraphQLBody<Result>> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return (await response.json()) as GraphQLBody<Result>;
}

/**
 * Sends a typed document to the gateway by its hash (codegen's `__meta__.hash`, listed in
 * persisted-documents.json), which is all a gateway started with PERSISTED_OPERATIONS_ONLY runs. A
 * gateway without that manifest does not know the hash yet and answers PERSISTED_QUERY_NOT_FOUND:
 * then the document's text is sent instead. The result and the variables are checked by tsc.
 */
export async function execute<Result, Variables>(
  endpoint: string,
  document: TypedDocumentString<Result, Variables>,
  variables: Variables,
  token?: string,
): Promise<Result> {
  const hash = document.__meta__?.hash as string | undefined;
  let body = hash
    ? await post<Result>(
        endpoint,
        { extensions: { persistedQuery: { version: 1, sha256Hash: hash } }, variables },
        token,
      )
    : undefined;
  if (
    !body ||
    body.errors?.some((error) => error.extensions?.code === 'PERSISTED_QUERY_NOT_FOUND')
  ) {
    body = await post<Result>(endpoint, { query: document.toString(), variables }, token);
  }
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
