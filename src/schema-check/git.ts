import { execFileSync } from 'node:child_process';
import { UsageError } from '../cli.js';

function git(args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

/** The commit a ref names, abbreviated; undefined when it names none here. */
export function commitOf(ref: string): string | undefined {
  return git(['rev-parse', '--verify', '--quiet', '--short', `${ref}^{commit}`])?.trim();
}

/**
 * The base to compare with when none is given: the last release tag (`v1.2.0`, reachable from
 * HEAD), else `origin/main`, else the previous commit.
 */
export function defaultBase(): string {
  if (git(['rev-parse', '--is-inside-work-tree'])?.trim() !== 'true')
    throw new UsageError('run it inside the git checkout of the project');
  const tag = git(['describe', '--tags', '--abbrev=0', '--match', 'v[0-9]*'])?.trim();
  if (tag) return tag;
  if (commitOf('origin/main')) return 'origin/main';
  return 'HEAD~1';
}

/** Whether a ref counts back from HEAD (`HEAD~1`, `HEAD^`): absent in a checkout that is too short. */
export const isRelativeToHead = (ref: string) => /^HEAD([~^]\d*)+$/.test(ref);

/** A file's text at a ref (path relative to the working directory); undefined when it is not there. */
export function fileAt(ref: string, path: string): string | undefined {
  return git(['show', `${ref}:./${path}`]);
}
