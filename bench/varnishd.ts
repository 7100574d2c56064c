import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Debian's varnishd (packages `varnish` and `varnish-modules`, for xkey). */
export const varnishdPath = process.env.VARNISHD_PATH ?? '/usr/sbin/varnishd';
export const varnishAvailable = existsSync(varnishdPath);

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** A port free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface Varnish {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Its counters now (varnishstat), by name: `MAIN.cache_hit`, `MAIN.cache_miss`… */
  counters(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/**
 * Starts varnishd in the foreground (`-F`) with the shipped configuration (docs/varnish/default.vcl)
 * in front of `backendPort`, on `port`, with a working directory of its own (`-n`); resolves once
 * it answers.
 */
export async function startVarnish(port: number, backendPort: number): Promise<Varnish> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-varnish-'));
  const shipped = await readFile(join(projectRoot, 'docs/varnish/default.vcl'), 'utf8');
  const vcl = join(dir, 'default.vcl');
  await writeFile(vcl, shipped.replace('.port = "4000";', `.port = "${backendPort}";`));
  const child: ChildProcess = spawn(
    varnishdPath,
    [
      ...['-F', '-n', join(dir, 'work'), '-a', `127.0.0.1:${port}`, '-f', vcl],
      ...['-s', 'malloc,32m', '-T', 'none', ...(process.getuid?.() === 0 ? ['-j', 'none'] : [])],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const counters = () => varnishCounters(join(dir, 'work'));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`varnishd exited:\n${output}`);
    }
    try {
      await fetch(`${url}/health/live`);
      return { url, counters, stop };
    } catch {
      if (attempt > 300) {
        await stop();
        throw new Error(`varnishd did not answer in time:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The counters of the varnishd whose working directory is `workdir`, read with varnishstat. */
function varnishCounters(workdir: string): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn('varnishstat', ['-n', workdir, '-1', '-j'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`varnishstat exited with ${code}`));
      const parsed = JSON.parse(text) as { counters?: Record<string, { value: number }> };
      const counters: Record<string, number> = {};
      for (const [name, { value }] of Object.entries(parsed.counters ?? parsed))
        counters[name] = value;
      resolve(counters);
    });
  });
}
