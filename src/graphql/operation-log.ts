import type { ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { AccessLogFields } from '../http/env.js';
import { operationOf } from './operation.js';

/** Names the executed operations (all of a batch) on the request's access line. */
export function logOperationNames(): Plugin<{ accessLog?: AccessLogFields }> {
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
  return { onExecute: name, onSubscribe: name };
}
