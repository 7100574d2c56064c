import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The parts of an OpenAPI 3.0 document the validator reads (after dereferencing). */
interface Schema {
  [keyword: string]: unknown;
}
interface HeaderDoc {
  required?: boolean;
  schema?: Schema;
}
interface ResponseDoc {
  description: string;
  headers?: Record<string, HeaderDoc>;
  content?: Record<string, { schema?: Schema }>;
  'x-error-codes'?: string[];
}
interface OperationDoc {
  responses: Record<string, ResponseDoc>;
}
type PathItem = Partial<Record<string, OperationDoc>>;
export interface OpenApiDocument {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, PathItem>;
  components?: { schemas?: Record<string, Schema> };
}

/** A response as the test received it. */
export interface ReceivedResponse {
  method: string;
  url: string;
  status: number;
  headers: Headers;
  text: string;
}

const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Checks REST responses against the OpenAPI document: the status must be documented for the
 * operation (or be 404 NOT_FOUND / 405 METHOD_NOT_ALLOWED in the Error shape for an unlisted path or method), the
 * documented required headers must be there, the body must match the schema (response schemas
 * forbid undocumented fields), and an error must carry a code listed for that status
 * (`x-error-codes`) with `status` equal to the HTTP status.
 */
export class ResponseValidator {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly compiled = new Map<Schema, ValidateFunction>();
  private readonly templates: { path: string; pattern: RegExp }[];
  private readonly basePath: string;

  private constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addFormat('int64', { type: 'number', validate: (value) => Number.isInteger(value) });
    this.ajv.addFormat('int32', {
      type: 'number',
      validate: (value) => Number.isInteger(value) && Math.abs(value) <= 2 ** 31,
    });
    this.basePath = document.servers?.[0]?.url ?? '';
    this.templates = Object.keys(document.paths).map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`),
    }));
  }

  /** Dereferences a copy of the document and prepares the validator. */
  static async create(document: unknown): Promise<ResponseValidator> {
    const copy = structuredClone(document) as Parameters<typeof SwaggerParser.dereference>[0];
    const dereferenced = (await SwaggerParser.dereference(copy)) as unknown as OpenApiDocument;
    return new ResponseValidator(dereferenced);
  }

  /** Throws an Error that says what does not match. */
  check(response: ReceivedResponse): void {
    const where = `${response.method} ${response.url} → ${response.status}`;
    const fail = (problem: string): never => {
      throw new Error(`Response not as documented: ${where}: ${problem}\n${response.text}`);
    };
    const expected = this.responseDoc(response, fail);
    this.checkHeaders(response, expected, fail);
    this.checkBody(response, expected, fail);
  }

  private responseDoc(response: ReceivedResponse, fail: (problem: string) => never): ResponseDoc {
    const url = new URL(response.url);
    let pathname = url.pathname;
    try {
      pathname = decodeURI(pathname);
    } catch {}
    if (!pathname.startsWith(this.basePath)) fail(`not under ${this.basePath}`);
    const relative = pathname.slice(this.basePath.length);
    const template = this.templates.find(({ pattern }) => pattern.test(relative));
    // What the document's description promises for a path or method it does not list.
    const unlisted = (code: string): ResponseDoc => ({
      description: code,
      content: { 'application/json': { schema: this.document.components?.schemas?.Error ?? {} } },
      'x-error-codes': [code],
    });
    if (!template) {
      if (response.status !== 404) fail('no documented path matches');
      return unlisted('NOT_FOUND');
    }
    const method = response.method.toLowerCase() === 'head' ? 'get' : response.method.toLowerCase();
    const pathItem = this.document.paths[template.path] as PathItem;
    const operation = methods.includes(method) ? pathItem[method] : undefined;
    if (!operation) {
      if (response.status !== 405) fail(`${template.path} documents no ${method.toUpperCase()}`);
      const allow = (response.headers.get('allow') ?? '').split(/,\s*/).sort();
      const documented = methods
        .filter((name) => pathItem[name])
        .flatMap((name) => (name === 'get' ? ['GET', 'HEAD'] : [name.toUpperCase()]))
        .sort();
      if (allow.join() !== documented.join())
        fail(`Allow is "${allow.join(', ')}", the document says ${documented.join(', ')}`);
      return unlisted('METHOD_NOT_ALLOWED');
    }
    const documented = operation.responses[String(response.status)] ?? operation.responses.default;
    if (!documented)
      fail(
        `status ${response.status} is not documented for ${method.toUpperCase()} ${template.path}`,
      );
    return documented as ResponseDoc;
  }

  private checkHeaders(
    response: ReceivedResponse,
    expected: ResponseDoc,
    fail: (problem: string) => never,
  ): void {
    for (const [name, header] of Object.entries(expected.headers ?? {})) {
      const value = response.headers.get(name);
      if (value === null) {
        if (header.required) fail(`header ${name} is missing`);
        continue;
      }
      if (header.schema?.type === 'integer') {
        if (!/^-?[0-9]+$/.test(value)) fail(`header ${name} is not an integer: ${value}`);
        const minimum = header.schema.minimum;
        if (typeof minimum === 'number' && Number(value) < minimum)
          fail(`header ${name} is below ${minimum}`);
      }
    }
  }

  private checkBody(
    response: ReceivedResponse,
    expected: ResponseDoc,
    fail: (problem: string) => never,
  ): void {
    const isHead = response.method.toUpperCase() === 'HEAD';
    if (!expected.content) {
      if (response.text !== '') fail('a body where the document has none');
      return;
    }
    if (isHead) return;
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    const media = expected.content[contentType];
    if (!media) fail(`content type "${contentType}" is not documented`);
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      fail('the body is not JSON');
    }
    if (media?.schema) {
      const validate = this.validatorFor(media.schema);
      if (!validate(body)) fail(`the body does not match: ${this.ajv.errorsText(validate.errors)}`);
    }
    if (response.status >= 400) {
      const error = body as { code: string; status: number };
      if (error.status !== response.status)
        fail(`body status ${error.status} differs from the HTTP status`);
      const codes = expected['x-error-codes'] ?? [];
      if (!codes.includes(error.code))
        fail(`code ${error.code} is not documented for this status (${codes.join(', ')})`);
    }
  }

  private validatorFor(schema: Schema): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(schema);
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}
