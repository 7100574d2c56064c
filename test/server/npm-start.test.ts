import { execFileSync } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import { serverNodeFlags } from '../helpers/process.js';
import { startServer } from '../helpers/server.js';

/** Every descendant of `root` (children, grandchildren, …), from `ps`. */
function descendants(root: number): number[] {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((row) => row.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [pid, ppid] of table) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once a TCP connection to `url` is refused. */
async function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describeDb('npm start under a supervisor', { timeout: 90_000 }, () => {
  it('SIGTERM sent to the npm process itself stops the server gracefully, leaving no process', async () => {
    const server = await startServer({}, { via: 'npm' });
    const tree = descendants(server.child.pid as number);
    try {
      // npm runs the server in place of its script shell: node is npm's direct child, running the
      // compiled JavaScript alone (no TypeScript loader, no helper process).
      expect(tree).toHaveLength(1);
      const command = execFileSync('ps', ['-o', 'args=', '-p', String(tree[0])], {
        encoding: 'utf8',
      });
      expect(command.trim()).toBe(['node', ...serverNodeFlags, 'dist/server.js'].join(' '));
      const live = await fetch(`${server.url}/health/live`);
      expect(live.status).toBe(200);

      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(server.logs.map((line) => line.msg)).toEqual(
        expect.arrayContaining([
          'shutting down: no new connections; finishing the requests in flight',
          'stopped',
        ]),
      );
      expect(server.logs.find((line) => line.signal)?.signal).toBe('SIGTERM');
      expect(await refused(server.url)).toBe(true);
      // Anything the server started ends with it, within moments.
      for (let i = 0; i < 50 && tree.some(alive); i++) await sleep(100);
      expect(tree.filter(alive)).toEqual([]);
    } finally {
      await server.stop();
      // An orphan left by a regression must not outlive the test.
      for (const pid of tree.filter(alive)) process.kill(pid, 'SIGKILL');
    }
  });
});
