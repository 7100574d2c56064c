import { type ExecutionResult, GraphQLError, validate } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { clipText, type ErrorBounds } from '../errors/catalogue.js';
import { standInError } from '../errors/graphql.js';

/** An error whose message and locations fit the bounds: itself when it fits already. */
function bounded(error: GraphQLError, bounds: ErrorBounds): GraphQLError {
  const message = clipText(error.message, bounds.errorMessageBytes);
  const items = bounds.errorListItems;
  if (message === error.message && (error.locations?.length ?? 0) <= items) return error;
  const copy = new GraphQLError(message, {
    nodes: error.nodes?.slice(0, items),
    source: error.source,
    positions: error.positions?.slice(0, items),
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
  if (!copy.locations && error.locations)
    Object.assign(copy, { locations: error.locations.slice(0, items) });
  return copy;
}

/** The error that ends a validation stopped before the end: unknown errors stand behind it. */
class ValidationStopped extends GraphQLError {
  constructor() {
    super('Validation stopped here; more errors may follow');
  }
}

/**
 * The error that stands for those left out of a refusal: their count (at least, when validation
 * stopped before the end), and the first one's code.
 */
function leftOut(left: readonly GraphQLError[]): GraphQLError {
  const count = left.length;
  const atLeast = left[count - 1] instanceof ValidationStopped ? 'At least ' : '';
  return standInError(
    `${atLeast}${count} more ${count === 1 ? 'error was' : 'errors were'} left out${leftOutEnd}`,
    left[0] as GraphQLError,
  );
}

const leftOutEnd = '; fix these and send the request again to see the rest';

/** Only `leftOut` writes this message: every other error's begins with words of its own. */
const leftOutMessage = new RegExp(
  `^(?:At least )?\\d+ more errors? (?:was|were) left out${leftOutEnd}$`,
);

/**
 * Whether a refusal's errors are bounded already (a recorded answer, replayed): at most `room`
 * of them, then the one that stands for those left out. Bounding them again changes nothing.
 */
function boundedAlready(errors: readonly GraphQLError[], room: number): boolean {
  const last = errors[errors.length - 1] as GraphQLError;
  return errors.length - 1 <= room && !last.path && leftOutMessage.test(last.message);
}

/**
 * Validation that stops once it has found one error more than a refusal lists: each error costs a
 * scan of the document for its line and column, and graphql-js would otherwise collect up to 100.
 * What graphql-js then adds ("Too many validation errors", or the "Validation aborted." that one
 * of its rules may add) is replaced by an error of this request's that says validation stopped.
 */
export function boundedValidation(bounds: ErrorBounds): typeof validate {
  const maxErrors = bounds.errorListItems + 1;
  return (schema, document, rules) => {
    const errors = validate(schema, document, rules, { maxErrors });
    if (errors.length <= maxErrors) return errors;
    return [...errors.slice(0, maxErrors), new ValidationStopped()];
  };
}

/**
 * Every error a GraphQL response carries is bounded (its message, its locations), and a refusal (a
 * result without data: a document that does not parse, does not validate, or whose variables do
 * not fit) lists at most `errorListItems` errors, a batch's together, each result saying how many
 * of its own were left out (validation stops soon after: `boundedValidation`). So a refusal stays
 * small whatever the document: each error may quote a name or a value of the request, and a
 * document may have thousands.
 */
export function boundedErrors(bounds: ErrorBounds): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (isAsyncIterable(result)) return;
      const results = Array.isArray(result) ? result : [result];
      if (!results.some((one) => one.errors?.length)) return;
      const boundedResults = boundResults(results, bounds);
      setResult(Array.isArray(result) ? boundedResults : (boundedResults[0] as ExecutionResult));
    },
  };
}

/**
 * The results of one request (a batch's, or one), their errors bounded as `boundedErrors` says;
 * results bounded already are kept as they are, so that a recorded answer (bounded by this
 * function before it was recorded: src/idempotency/graphql.ts) is replayed as it was answered.
 */
export function boundResults(
  results: readonly ExecutionResult[],
  bounds: ErrorBounds,
): ExecutionResult[] {
  let room = bounds.errorListItems;
  return results.map((one) => {
    if (!one.errors?.length) return one;
    const refused = one.data == null;
    if (refused && boundedAlready(one.errors, Math.max(room, 0))) {
      room -= one.errors.length - 1;
      return one;
    }
    const kept = refused ? one.errors.slice(0, Math.max(room, 0)) : one.errors;
    if (refused) room -= kept.length;
    const errors = kept.map((error) => bounded(error, bounds));
    if (kept.length < one.errors.length) errors.push(leftOut(one.errors.slice(kept.length)));
    return { ...one, errors };
  });
}
