import type { DocumentNode, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { planOf } from '../graphql/plan/index.js';

/** The real sizes of the unpaged lists a request asks for, by schema coordinate. */
export type ListSizes = ReadonlyMap<string, number>;

/** What this hands to validation, on the operation's context. */
export interface ListSizesContext {
  listSizes?: ListSizes;
}

export interface UnpagedListsOptions {
  schema: GraphQLSchema;
  /** How to count each unpaged list, by schema coordinate (`Query.categories`). */
  counters: Record<string, () => Promise<number>>;
  /** The parsed document of a query text (the parse cache), undefined when it does not parse. */
  parse: (text: string) => DocumentNode | undefined;
}

/** One operation of a request: its parsed document and the name of the operation it runs. */
export interface AskedOperation {
  document: DocumentNode;
  operationName?: string | null | undefined;
}

export interface UnpagedLists {
  /**
   * The sizes of the unpaged lists the operations of a request ask for, each counted once now
   * (undefined: none), kept for the request's operations.
   */
  sizesFor(
    operations: readonly AskedOperation[],
    request?: Request,
  ): Promise<ListSizes | undefined>;
  /** Counts them for each operation, before validation, which reads them from the context. */
  plugin: Plugin<ListSizesContext>;
}

/**
 * The real size of each unpaged list (`Query.categories`), which the cost rule multiplies by:
 * counted for the requests that ask for one, before validation (which is synchronous), and handed
 * to it on the operation's context. Which lists a document asks for is found once per document.
 */
export function unpagedLists({ schema, counters, parse }: UnpagedListsOptions): UnpagedLists {
  // Which lists an operation asks for is in its plan (made once per document).
  const listsIn = ({ document, operationName }: AskedOperation) =>
    (planOf(schema, document, operationName)?.lists ?? []).filter(
      (coordinate) => coordinate in counters,
    );
  const fieldNames = Object.keys(counters).map((coordinate) => coordinate.split('.')[1] ?? '');
  const counted = new WeakMap<Request, { sizes: ListSizes | undefined }>();
  const sizesFor = async (operations: readonly AskedOperation[], request?: Request) => {
    const done = request && counted.get(request);
    if (done) return done.sizes;
    const coordinates = [...new Set(operations.flatMap(listsIn))];
    let sizes: ListSizes | undefined;
    if (coordinates.length > 0) {
      const counts = await Promise.all(
        coordinates.map(
          async (coordinate) => [coordinate, await counters[coordinate]?.()] as const,
        ),
      );
      sizes = new Map(counts.filter((entry): entry is [string, number] => entry[1] !== undefined));
    }
    // The operations of a batch share the counts made for the whole batch.
    if (request) counted.set(request, { sizes });
    return sizes;
  };
  return {
    sizesFor,
    plugin: {
      onParams({ params, request, context }) {
        // A document that never names such a field is not parsed here (Yoga parses it next).
        const text = typeof params.query === 'string' ? params.query : '';
        const document = fieldNames.some((name) => text.includes(name)) ? parse(text) : undefined;
        const operation = document && { document, operationName: params.operationName };
        // Synchronous unless there is something to count: most documents ask for no such list.
        if (!operation || listsIn(operation).length === 0) return;
        return sizesFor([operation], request).then((sizes) => {
          if (sizes) (context as ListSizesContext).listSizes = sizes;
        });
      },
    },
  };
}
