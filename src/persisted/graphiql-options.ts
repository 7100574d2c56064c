import {
  type GraphQLSchema,
  introspectionFromSchema,
  parse,
  print,
  stripIgnoredCharacters,
} from 'graphql';
import type { GraphiQLOptions } from 'graphql-yoga';
import type { DevelopmentToken } from '../http/landing.js';
import type { PersistedManifest } from './operations.js';

const exampleQuery = `# Welcome to the Pet Store gateway. Press the run button to try this query.
# REST API docs: /api/docs
# What a request costs is in the response's extensions.cost (requested before it ran, actual
# after, and your budget: throttleStatus); the weights are the @cost and @listSize directives of
# the schema (Docs).
query AvailablePets {
  pets(first: 5, status: available) {
    totalCount
    edges {
      node { id name status category { name } inventory { quantity } }
    }
  }
}
`;

const TITLE = 'Pet Store gateway · <a href="/api/docs">REST API docs</a>';

/**
 * The GraphiQL page under PERSISTED_OPERATIONS_ONLY, where the server parses nothing outside its
 * manifest, introspection included: the schema comes with the page (Docs and autocomplete work),
 * the page says why other documents are refused, and `persisted` maps each manifest operation, as
 * GraphiQL prints a document before sending it, to its hash, which the page's script sends instead
 * of the text (src/http/public/graphiql-init.js). GraphiQL's executor sends the printed document
 * without its ignored characters; the plain printed form is kept too.
 */
function persistedOnlyOptions(schema: GraphQLSchema, manifest: PersistedManifest) {
  const printed = new Map<string, string>();
  let first: string | undefined;
  for (const [hash, document] of manifest) {
    try {
      const text = print(parse(document));
      first ??= text;
      printed.set(text, hash);
      printed.set(stripIgnoredCharacters(text), hash);
    } catch {
      // A document that does not parse runs nowhere; the server refuses it when it is sent.
    }
  }
  return {
    title: `${TITLE} · persisted operations only`,
    defaultQuery:
      `# This server runs only the ${manifest.size} operation(s) of its persisted-operations manifest\n` +
      '# (PERSISTED_OPERATIONS_ONLY). GraphiQL sends one of them by its hash; any other document\n' +
      '# is refused with PERSISTED_QUERY_ONLY, introspection included: Docs and autocomplete come\n' +
      `# with this page.\n${first ?? ''}`,
    schema: introspectionFromSchema(schema),
    persisted: Object.fromEntries(printed),
  };
}

/** Yoga's `graphiql` option: the page's title, first query, headers and, when needed, schema. */
export function graphiqlOptions({
  schema,
  manifest,
  developmentToken,
}: {
  schema: GraphQLSchema;
  manifest: PersistedManifest | undefined;
  developmentToken: DevelopmentToken;
}): () => Promise<GraphiQLOptions> {
  const base = manifest
    ? persistedOnlyOptions(schema, manifest)
    : { title: TITLE, defaultQuery: exampleQuery };
  return async () => ({
    ...base,
    // Development only: the Headers tab starts with the all-scopes development token.
    ...(developmentToken
      ? { headers: JSON.stringify({ Authorization: `Bearer ${await developmentToken()}` }) }
      : {}),
  });
}
