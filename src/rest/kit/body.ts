import type { Context } from 'hono';
import { isRecord } from '../../domain/validation.js';
import { DomainError } from '../../errors/catalogue.js';
import { JsonTooDeepError, parseJson } from './json.js';

/** `application/json` and the `+json` types (`application/merge-patch+json`, …). */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json$/i;

const utf8 = new TextDecoder('utf-8', { fatal: true });

const malformed = (message: string) => new DomainError('MALFORMED_REQUEST', message);

/**
 * Reads a request body that must be a JSON object. The content type decides, not the bytes: any
 * other type is 415 even when the body happens to be JSON; a JSON type whose body does not parse
 * or is not an object is 400 MALFORMED_REQUEST. Integers above 2^53 are read as exact bigints.
 */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const contentType = c.req.header('content-type')?.trim();
  if (!contentType) {
    if ((await c.req.arrayBuffer()).byteLength === 0) {
      throw malformed('The request needs a JSON object body (Content-Type: application/json)');
    }
    throw unsupported('The request body has no Content-Type; send it as application/json');
  }
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim());
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    throw unsupported(`Content-Type ${mediaType} is not supported; send application/json`);
  }
  const charset = parameters
    .map((parameter) => /^charset\s*=\s*"?([^"]*)"?$/i.exec(parameter)?.[1])
    .find((value) => value !== undefined);
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw unsupported(`charset ${charset} is not supported; send UTF-8`);
  }

  const bytes = await c.req.arrayBuffer();
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw malformed('The request body is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (error) {
    if (error instanceof JsonTooDeepError) throw malformed(`The request body is ${error.message}`);
    const detail = error instanceof SyntaxError ? `: ${error.message}` : '';
    throw malformed(`The request body is not valid JSON${detail}`);
  }
  if (!isRecord(value)) throw malformed('The request body must be a JSON object');
  return value;
}

function unsupported(message: string): DomainError {
  return new DomainError('UNSUPPORTED_MEDIA_TYPE', message);
}
