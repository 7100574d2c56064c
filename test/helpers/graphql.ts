import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { authorizationHeader, type Client } from './client.js';

export { anonymous, withAuthorization } from './client.js';

export interface GraphQLResponse<Data> {
  status: number;
  headers: Headers;
  data: Data | null | undefined;
  errors:
    | {
        message: string;
        path?: (string | number)[];
        extensions: { code: string; status: number };
      }[]
    | undefined;
}

/**
 * Sends one GraphQL operation over HTTP (POST /graphql) through the app's fetch handler, with the
 * client's token (test apps carry an all-scopes one).
 */
export async function graphql<Data, Variables>(
  app: Client,
  document: TypedDocumentNode<Data, Variables>,
  ...[variables, headers]: Variables extends Record<string, never>
    ? [variables?: Variables, headers?: Record<string, string>]
    : [variables: Variables, headers?: Record<string, string>]
): Promise<GraphQLResponse<Data>> {
  const response = await app.fetch(
    new Request('http://petstore.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...authorizationHeader(app),
        ...headers,
      },
      body: JSON.stringify({ query: print(document), variables }),
    }),
  );
  const body = (await response.json()) as {
    data?: Data | null;
    errors?: GraphQLResponse<Data>['errors'];
  };
  return {
    status: response.status,
    headers: response.headers,
    data: body.data,
    errors: body.errors,
  };
}

/** The codes of a response's errors, for compact assertions. */
export function errorCodes(response: GraphQLResponse<unknown>): string[] {
  return (response.errors ?? []).map((error) => error.extensions.code);
}

/** A raw POST /graphql request, for tests of the HTTP layer rather than of one operation. */
export function graphqlRequest(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request('http://petstore.test/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}
