import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { describeDb, useTestApp } from '../helpers/app.js';
import { rest } from '../helpers/rest.js';

/**
 * Swagger UI's "Try it out" sends the document's examples, those of headers included: every
 * operation, executed unchanged from the top of the page to the bottom with the development token,
 * succeeds on the sample data. (test/browser/swagger-execute.test.ts clicks through the page
 * itself; this one runs without a browser, on the app's fetch handler.)
 */

interface Schema {
  $ref?: string;
  type?: string;
  example?: unknown;
  enum?: unknown[];
  properties?: Record<string, Schema>;
}

interface Operation {
  parameters?: { name: string; in: string; example?: unknown; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}

const document = JSON.parse(
  readFileSync(new URL('../../schema/openapi.json', import.meta.url), 'utf8'),
) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

const resolved = (schema: Schema): Schema =>
  schema.$ref
    ? resolved(document.components.schemas[schema.$ref.split('/').at(-1) ?? ''] ?? {})
    : schema;

/** The value Swagger UI fills in for a property: its example, an enum's first value, `true`. */
function sample(schema: Schema): unknown {
  const target = resolved(schema);
  if (target.example !== undefined) return target.example;
  if (target.enum) return target.enum[0];
  if (target.type === 'boolean') return true;
  return undefined;
}

function exampleBody(operation: Operation): Record<string, unknown> | undefined {
  const schema = operation.requestBody?.content['application/json']?.schema;
  if (!schema) return undefined;
  const body: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(resolved(schema).properties ?? {})) {
    const value = sample(property);
    if (value !== undefined) body[name] = value;
  }
  return body;
}

describeDb('the REST examples', () => {
  const app = useTestApp({ SEED: 'true' });

  it('succeed when executed unchanged, in the order of the document', async () => {
    const failures: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => {
          const parameter = operation.parameters?.find((p) => p.in === 'path' && p.name === name);
          return String(parameter?.example);
        });
        const json = exampleBody(operation);
        const headers: Record<string, string> = {};
        for (const parameter of operation.parameters ?? []) {
          const example = parameter.example ?? parameter.schema.example;
          if (parameter.in === 'header' && example !== undefined)
            headers[parameter.name] = String(example);
        }
        const response = await rest(app(), method.toUpperCase(), url, { headers, json });
        if (response.status >= 300)
          failures.push(`${method.toUpperCase()} ${url}: ${response.status} ${response.text}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
