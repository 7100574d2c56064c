import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isRecord } from '../domain/validation.js';
import { documentError, refuse } from '../errors/graphql.js';

/** What is wrong with one operation of a request body, in words a person can act on. */
function operationProblem(params: unknown): string | undefined {
  if (!isRecord(params)) return 'Each operation must be a JSON object with a "query" string';
  // A persisted operation's document is found by its hash later (src/persisted/operations.ts).
  const persisted = isRecord(params.extensions) && params.extensions.persistedQuery != null;
  if (params.query == null && !persisted)
    return 'The request has no "query": send the GraphQL document in it';
  if (params.query != null && typeof params.query !== 'string')
    return '"query" must be a string holding a GraphQL document';
  for (const key of ['variables', 'extensions']) {
    if (params[key] != null && !isRecord(params[key])) return `"${key}" must be a JSON object`;
  }
  if (params.operationName != null && typeof params.operationName !== 'string')
    return '"operationName" must be a string';
  return undefined;
}

/**
 * The request errors Yoga would raise itself, raised first with the contract's codes: a content
 * type it cannot read (415), GET parameters that are not JSON, and operations whose parameters
 * have the wrong shape. A batch is refused whole when any of its operations is malformed.
 */
export const requestShape: Plugin = {
  onRequestParse({ request, requestParser, setRequestParser }) {
    if (!requestParser) {
      throw refuse(
        'UNSUPPORTED_MEDIA_TYPE',
        `${request.headers.get('content-type') ?? 'A body without a content type'} is not supported: send application/json`,
      );
    }
    // Yoga's GET parser reads `variables` and `extensions` with a bare JSON.parse; its POST
    // parser says what is wrong in words, but with Yoga's own code and the parser's error.
    const malformed = (error: unknown): never => {
      throw refuse(
        'MALFORMED_REQUEST',
        error instanceof GraphQLError
          ? error.message
          : '"variables" and "extensions" must be JSON objects',
      );
    };
    // No extra turn for a request that parses (a GET's parser answers at once).
    setRequestParser((incoming) => {
      try {
        const parsed = requestParser(incoming);
        return parsed instanceof Promise ? parsed.catch(malformed) : parsed;
      } catch (error) {
        return malformed(error);
      }
    });
    return {
      onRequestParseDone({ requestParserResult }) {
        const operations = Array.isArray(requestParserResult)
          ? requestParserResult
          : [requestParserResult];
        for (const params of operations) {
          const problem = operationProblem(params);
          if (problem) throw refuse('MALFORMED_REQUEST', problem);
        }
      },
    };
  },
};

/** Adds the contract's codes to GraphQL's own parse and validation errors. */
export const documentErrorCodes: Plugin = {
  onParse:
    () =>
    ({ result, replaceParseResult }) => {
      if (result instanceof GraphQLError)
        replaceParseResult(documentError(result, 'GRAPHQL_PARSE_FAILED'));
    },
  onValidate:
    () =>
    ({ result, setResult }) => {
      if (result.length > 0)
        setResult(result.map((error) => documentError(error, 'GRAPHQL_VALIDATION_FAILED')));
    },
};
