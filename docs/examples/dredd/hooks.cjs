// Dredd hooks for the Pet Store REST API (docs/api.md, "Contract testing with Dredd").
//
// Dredd makes one transaction per documented response: the operation's example request, expecting
// that status. These hooks give each transaction a token, and change the request of an error
// status so that it provokes that error (an invalid token for 401, an unknown id for 404, …).
// Statuses that no request can provoke on its own are skipped, each with its reason.
//
// Environment: TOKEN (every scope), TOKEN_ORDERS_READ (orders:read only) and TOKEN_PETS_WRITE
// (pets:write only), as `npm run -s token -- <scopes>` prints them.
const { randomUUID } = require('node:crypto');
const hooks = require('hooks');

/** Why a status is skipped: it needs a state or a fault that the example request cannot cause. */
const skipped = {
  409: 'needs a conflicting state (stock, orders, a duplicate name) or a request still running',
  410: 'needs a server whose PET_BY_ID_SUNSET has passed',
  429: 'needs a client over its rate limit',
  500: 'needs an unexpected failure',
  503: 'needs the database down, or a request past its time limit',
};

const UNKNOWN_ID = '999999999';

let document;
const etags = new Map();

hooks.beforeAll(async (transactions, done) => {
  try {
    const response = await fetch(transactions[0].origin.filename);
    document = await response.json();
  } catch (error) {
    hooks.log(`the OpenAPI document could not be read: ${error}`);
  }
  done();
});

/** The operation a transaction exercises, and its documented response. */
function operationOf(transaction) {
  const { resourceName } = transaction.origin;
  const operation = document.paths[resourceName][transaction.request.method.toLowerCase()];
  return { operation, response: operation.responses[transaction.expected.statusCode] };
}

const hasPathId = (transaction) => /\{\w+\}/.test(transaction.origin.resourceName);
const withPathId = (transaction, id) => {
  transaction.request.uri = transaction.request.uri.replace(/\/\d+$/, `/${id}`);
  transaction.fullPath = transaction.fullPath.replace(/\/\d+$/, `/${id}`);
};
const body = (transaction) => JSON.parse(transaction.request.body || '{}');
const setBody = (transaction, value) => {
  transaction.request.body = typeof value === 'string' ? value : JSON.stringify(value);
};

/** How each error status is provoked; a status not listed here (or answering a reason) is skipped. */
const provoke = {
  400(transaction) {
    if (hasPathId(transaction)) return withPathId(transaction, '0');
    if (transaction.request.body) return setBody(transaction, {});
    const separator = transaction.request.uri.includes('?') ? '&' : '?';
    transaction.request.uri += `${separator}limit=0`;
    transaction.fullPath += `${separator}limit=0`;
  },
  401(transaction) {
    transaction.request.headers.Authorization = 'Bearer not-a-token';
  },
  403(transaction, operation) {
    const token =
      operation['x-required-scope'] === 'orders:read'
        ? process.env.TOKEN_PETS_WRITE
        : process.env.TOKEN_ORDERS_READ;
    transaction.request.headers.Authorization = `Bearer ${token}`;
  },
  404(transaction) {
    withPathId(transaction, UNKNOWN_ID);
  },
  412(transaction) {
    // A delete's 204 transaction has just removed the example resource: its 412 would be a 404.
    if (transaction.request.method === 'DELETE') return 'the example resource is deleted already';
    transaction.request.headers['If-Match'] = '"0"';
  },
  413(transaction) {
    setBody(transaction, { name: 'x'.repeat(110 * 1024) });
  },
  415(transaction) {
    transaction.request.headers['Content-Type'] = 'text/plain';
  },
  422(transaction) {
    const value = body(transaction);
    if ('categoryId' in value) value.categoryId = Number(UNKNOWN_ID);
    else if ('petId' in value) value.petId = Number(UNKNOWN_ID);
    else return 'only IDEMPOTENCY_KEY_REUSED, which needs a key used before for another request';
    setBody(transaction, value);
  },
};

hooks.beforeEach((transaction) => {
  const { headers } = transaction.request;
  // Dredd sends every optional header parameter without an example as an empty header, which
  // the API refuses (an empty If-Match or Idempotency-Key is 400): those are left out.
  for (const name of Object.keys(headers)) if (headers[name] === '') delete headers[name];
  headers.Authorization = `Bearer ${process.env.TOKEN}`;
  const method = transaction.request.method;
  if (method === 'POST' || method === 'PATCH') headers['Idempotency-Key'] = randomUUID();

  const status = Number(transaction.expected.statusCode);
  const { operation, response } = operationOf(transaction);
  if (status === 304) {
    const etag = etags.get(transaction.fullPath);
    if (etag) headers['If-None-Match'] = etag;
  } else if (status >= 400) {
    const reason = skipped[status] ?? provoke[status]?.(transaction, operation);
    if (reason) {
      transaction.skip = true;
      hooks.log(`skipped ${transaction.name}: ${reason}`);
    }
  }

  // Dredd expects every documented response header; only those the document requires are kept.
  const expected = transaction.expected.headers;
  for (const name of Object.keys(expected)) {
    if (name.toLowerCase() === 'content-type') continue;
    if (!response.headers?.[name]?.required) delete expected[name];
  }
  // Every JSON answer says its charset; Dredd compares the whole value.
  if (expected['Content-Type'] === 'application/json') {
    expected['Content-Type'] = 'application/json; charset=utf-8';
  }
});

hooks.afterEach((transaction) => {
  const etag = transaction.real?.headers?.etag;
  if (transaction.request.method === 'GET' && etag) etags.set(transaction.fullPath, etag);
});
