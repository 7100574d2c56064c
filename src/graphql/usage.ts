import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ClientName } from '../http/env.js';
import { UNKNOWN_CLIENT } from '../observability/client-name.js';
import type { UsageRecorder } from '../usage/recorder.js';
import { schemaUsage, variableCoordinates } from './coordinates.js';

/**
 * Counts the schema coordinates of every operation that runs (queries and mutations when they
 * execute, subscriptions when they subscribe), per client name and version: the document's
 * coordinates as one list, worked out once per document, and the enum values and input fields its
 * variables name. A document refused before it runs (it does not validate, a limit) counts nothing.
 */
export function usageRecording(recorder: UsageRecorder): Plugin<{ clientName?: ClientName }> {
  const record = ({
    args,
  }: {
    args: {
      schema: GraphQLSchema;
      document: DocumentNode;
      operationName?: string | null | undefined;
      variableValues?: Readonly<Record<string, unknown>> | null | undefined;
      contextValue: { clientName?: ClientName };
    };
  }) => {
    const usage = schemaUsage(args.schema, args.document, args.operationName);
    const client = args.contextValue.clientName ?? UNKNOWN_CLIENT;
    const now = Date.now();
    recorder.record('graphql', usage.coordinates, client, now);
    if (usage.variables.length > 0)
      recorder.recordEach('graphql', variableCoordinates(usage, args.variableValues), client, now);
  };
  return { onExecute: record, onSubscribe: record };
}
