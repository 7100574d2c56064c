import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { Hono } from 'hono';

const contentTypes: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
};

/**
 * Serves a fixed list of files (URL path → file on disk), each read once and then kept in memory.
 * Only the listed paths exist, so no request can reach another file.
 */
export function assetRoutes(files: Record<string, string>) {
  const routes = new Hono();
  for (const [path, file] of Object.entries(files)) {
    const type = contentTypes[extname(file)] ?? 'application/octet-stream';
    let content: Promise<Buffer> | undefined;
    routes.get(path, async (c) => {
      content ??= readFile(file).catch((error: unknown) => {
        content = undefined;
        throw error;
      });
      return c.body(new Uint8Array(await content), 200, {
        'Content-Type': type,
        'Cache-Control': 'public, max-age=3600',
      });
    });
  }
  return routes;
}
