import type { ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { operationOf } from '../graphql/plan/operation.js';
import { noteErrorCode } from '../http/access-log-fields.js';
import type { AccessLogFields } from '../http/env.js';

type Fields = { accessLog?: AccessLogFields };

/**
 * What the request's access line says of GraphQL: the executed operations (all of a batch) and the
 * error codes of the answer, those of a 200 too (partial data, a request error under
 * `application/json`), read once the errors are masked. A stream's events are not read.
 */
export function logOperationNames(): Plugin<Fields, Fields> {
  const name = ({
    args,
  }: {
    args: ExecutionArgs & { contextValue: { accessLog?: AccessLogFields } };
  }) => {
    const fields = args.contextValue.accessLog;
    if (!fields) return;
    const name = operationOf(args.document, args.operationName)?.name?.value ?? 'Anonymous';
    fields.operation = fields.operation ? `${fields.operation},${name}` : name;
  };
  return {
    onExecute: name,
    onSubscribe: name,
    onResultProcess({ result, serverContext }) {
      const fields = serverContext.accessLog;
      if (!fields || Symbol.asyncIterator in result) return;
      for (const one of Array.isArray(result) ? result : [result]) {
        for (const error of one.errors ?? []) noteErrorCode(fields, error.extensions?.code);
      }
    },
  };
}
