import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type SchemaUsage, schemaUsage, variableCoordinates } from '../graphql/plan/index.js';
import type { ClientName, UsageNote } from '../http/env.js';
import { UNKNOWN_CLIENT } from '../observability/client-name.js';
import type { UsageRecorder } from './recorder.js';

interface UsageContext {
  clientName?: ClientName;
  usageNote?: UsageNote | undefined;
}

/** A document's coordinates as the note the response cache keeps (space-separated), made once. */
const notes = new WeakMap<SchemaUsage, string>();
const noteOf = (usage: SchemaUsage) => {
  let note = notes.get(usage);
  if (note === undefined) {
    note = usage.coordinates.join(' ');
    notes.set(usage, note);
  }
  return note;
};

/**
 * Counts the schema coordinates of every operation that runs (queries and mutations when they
 * execute, subscriptions when they subscribe), per client name and version: the document's
 * coordinates as one list, worked out once per document, and the enum values and input fields its
 * variables name. A document refused before it runs (it does not validate, a limit) counts nothing.
 * On a request the response cache may answer later, it notes what was used (UsageNote), so that a
 * hit counts the same for its own client (src/usage/cached-answers.ts).
 */
export function usageRecording(recorder: UsageRecorder): Plugin<UsageContext> {
  const record = ({
    args,
  }: {
    args: {
      schema: GraphQLSchema;
      document: DocumentNode;
      operationName?: string | null | undefined;
      variableValues?: Readonly<Record<string, unknown>> | null | undefined;
      contextValue: UsageContext;
    };
  }) => {
    const usage = schemaUsage(args.schema, args.document, args.operationName);
    const client = args.contextValue.clientName ?? UNKNOWN_CLIENT;
    const now = Date.now();
    recorder.record('graphql', usage.coordinates, client, now);
    const fromVariables = variableCoordinates(usage, args.variableValues);
    if (fromVariables.length > 0) recorder.recordEach('graphql', fromVariables, client, now);
    const note = args.contextValue.usageNote;
    if (!note || usage.coordinates.length + fromVariables.length === 0) return;
    const used = [noteOf(usage), ...fromVariables].join(' ');
    note.coordinates = note.coordinates ? `${note.coordinates} ${used}` : used;
  };
  return { onExecute: record, onSubscribe: record };
}
