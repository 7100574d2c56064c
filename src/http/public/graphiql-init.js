// Starts Yoga's GraphiQL with the options the server embedded in the page. Monaco's settings must
// exist before its code loads; its workers come from the same server as the page.
const workers = {
  editorWorkerService: '/assets/graphiql/editor.worker.js',
  json: '/assets/graphiql/json.worker.js',
  graphql: '/assets/graphiql/graphql.worker.js',
};
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: (_moduleId, label) => workers[label] ?? workers.editorWorkerService,
};

// With PERSISTED_OPERATIONS_ONLY the server runs its manifest's operations by hash alone:
// `persisted` maps each one, as GraphiQL prints a document before sending it, to its hash, which
// is sent in place of the text (POST bodies, and the query string of a subscription's GET).
function sendPersistedByHash(persisted) {
  const hashed = (operation) => {
    const hash = typeof operation?.query === 'string' ? persisted[operation.query] : undefined;
    if (!hash) return operation;
    const { query: _query, ...rest } = operation;
    return {
      ...rest,
      extensions: { ...rest.extensions, persistedQuery: { version: 1, sha256Hash: hash } },
    };
  };
  const send = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input.url, location.href);
    if (url.pathname !== '/graphql') return send(input, init);
    if (typeof init?.body === 'string') {
      try {
        const body = JSON.parse(init.body);
        const changed = Array.isArray(body) ? body.map(hashed) : hashed(body);
        return send(input, { ...init, body: JSON.stringify(changed) });
      } catch {
        return send(input, init);
      }
    }
    const query = url.searchParams.get('query');
    const hash = query === null ? undefined : persisted[query];
    if (!hash) return send(input, init);
    url.searchParams.delete('query');
    const extensions = JSON.parse(url.searchParams.get('extensions') ?? '{}');
    extensions.persistedQuery = { version: 1, sha256Hash: hash };
    url.searchParams.set('extensions', JSON.stringify(extensions));
    return send(url.toString(), init);
  };
}

const script = document.createElement('script');
script.src = '/assets/graphiql/yoga-graphiql.js';
script.onload = () => {
  const { persisted, ...options } = JSON.parse(
    document.getElementById('graphiql-options').textContent,
  );
  if (persisted) sendPersistedByHash(persisted);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('graphiql'), options);
};
document.body.append(script);
