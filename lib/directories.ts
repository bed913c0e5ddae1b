// Make a directory and its missing parents, one level at a time: an error is thrown, never retried.
// Node's mkdirSync(dir, { recursive: true }) loops forever where a parent exists but a child
// cannot be made there and the kernel says ENOENT (under /proc: mkdir /proc/x is ENOENT, mkdir
// /proc EEXIST, and it starts again), so `EVENT_STORE=sqlite:/proc/x/g.db` hung the start.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDirectories(dir: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    try {
      if (statSync(at).isDirectory()) break;
      // A file where a directory should be: what mkdir would say.
      throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${at}'`), { code: 'EEXIST', syscall: 'mkdir', path: at });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const path of missing.reverse()) {
    try {
      mkdirSync(path);
    } catch (error) {
      // Made meanwhile by another process (two workers starting): fine when it is a directory.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(path).isDirectory()) throw error;
    }
  }
}
