import type { ObjectRef } from '@pothos/core';
import { parseId } from '../../domain/ids.js';
import { pageSize } from '../../domain/paging.js';
import { validationFailed } from '../../errors/catalogue.js';
import { builder } from './builder.js';
import { countCost } from './cost-directives.js';

/**
 * Relay-style connections with exactly the arguments of the contract (`first`, `after`): the
 * relay plugin would add `last`/`before`, which the API does not offer. Lists are ordered by id;
 * a cursor is the base64url of the last id seen.
 */
export interface ConnectionShape<Node> {
  edges: { cursor: string; node: Node }[];
  pageInfo: PageInfoShape;
  totalCount: () => number | Promise<number>;
}

interface PageInfoShape {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface ConnectionArgs {
  first?: number | null | undefined;
  after?: string | null | undefined;
}

/** What to fetch for a page: one row more than asked, to know whether another page follows. */
export interface ConnectionPage {
  size: number;
  take: number;
  afterId: bigint | undefined;
}

export function encodeCursor(id: bigint): string {
  return Buffer.from(String(id)).toString('base64url');
}

function decodeCursor(cursor: string): bigint {
  const decoded = /^[A-Za-z0-9_-]{1,28}$/.test(cursor)
    ? Buffer.from(cursor, 'base64url').toString()
    : '';
  try {
    return parseId(decoded, 'after');
  } catch {
    throw validationFailed(
      'after must be a cursor returned by this API (edges.cursor or pageInfo.endCursor)',
    );
  }
}

export function connectionPage(args: ConnectionArgs): ConnectionPage {
  const size = pageSize(args.first, 'first');
  return {
    size,
    take: size + 1,
    afterId: args.after == null ? undefined : decodeCursor(args.after),
  };
}

export function buildConnection<Node>(
  rows: Node[],
  page: ConnectionPage,
  idOf: (node: Node) => bigint,
  totalCount: () => number | Promise<number>,
): ConnectionShape<Node> {
  const nodes = rows.slice(0, page.size);
  const edges = nodes.map((node) => ({ cursor: encodeCursor(idOf(node)), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > page.size,
      // Forward-only paging: there is a previous page whenever we started after a cursor.
      hasPreviousPage: page.afterId !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount,
  };
}

/** How a root connection reads its list: a page of rows, and a count asked for only if needed. */
export interface ListSource<Node> {
  list: (page: ConnectionPage) => Promise<Node[]>;
  count: () => Promise<number>;
  idOf: (node: Node) => bigint;
}

/**
 * Resolves a root connection field: one page of plain rows. Their relations are read by the
 * nodes' own fields through the request's loaders.
 */
export async function resolveListConnection<Node>(
  args: ConnectionArgs,
  source: ListSource<Node>,
): Promise<ConnectionShape<Node>> {
  const page = connectionPage(args);
  return buildConnection(await source.list(page), page, source.idOf, source.count);
}

const PageInfo = builder.objectRef<PageInfoShape>('PageInfo').implement({
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage'),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage'),
    startCursor: t.exposeString('startCursor', { nullable: true }),
    endCursor: t.exposeString('endCursor', { nullable: true }),
  }),
});

/** Declares `<Name>Connection` and `<Name>Edge` for a node type. */
export function connectionType<Node>(
  name: string,
  node: ObjectRef<typeof builder.$inferSchemaTypes, Node>,
) {
  const edge = builder.objectRef<{ cursor: string; node: Node }>(`${name}Edge`).implement({
    fields: (t) => ({
      cursor: t.exposeString('cursor'),
      // The cast only helps TypeScript through the generic node shape.
      node: t.field({ type: node, resolve: (parent) => parent.node as never }),
    }),
  });
  return builder.objectRef<ConnectionShape<Node>>(`${name}Connection`).implement({
    fields: (t) => ({
      edges: t.field({
        type: [edge],
        resolve: (parent, _args, ctx) => {
          ctx.listItems.spend(parent.edges.length);
          return parent.edges;
        },
      }),
      pageInfo: t.field({ type: PageInfo, resolve: (parent) => parent.pageInfo }),
      totalCount: t.int({ directives: countCost, resolve: (parent) => parent.totalCount() }),
    }),
  });
}

export const connectionArgs = builder.args((t) => ({
  first: t.int({ description: 'Page size, 0-100 (default 20).' }),
  after: t.string({ description: 'Cursor to continue after (an endCursor from a previous page).' }),
}));
