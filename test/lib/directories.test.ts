// makeDirectories (lib/directories.ts): the missing levels made, an existing directory left as it
// is, a file on the way refused, and a directory the kernel will not make is an error at once
// (Node's recursive mkdirSync loops forever under /proc).
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { makeDirectories } from '../../lib/directories.js';

t.test('makes every missing level; an existing directory is fine', async (t) => {
  const dir = t.testdir();
  makeDirectories(join(dir, 'a', 'b', 'c'));
  t.ok(statSync(join(dir, 'a', 'b', 'c')).isDirectory());
  makeDirectories(join(dir, 'a', 'b', 'c'));
  makeDirectories(dir);
  mkdirSync(join(dir, 'made-by-another'));
  makeDirectories(join(dir, 'made-by-another', 'x'));
  t.ok(existsSync(join(dir, 'made-by-another', 'x')));
});

t.test('a file where a directory should be is refused, naming it', async (t) => {
  const dir = t.testdir();
  writeFileSync(join(dir, 'file'), '');
  t.throws(() => makeDirectories(join(dir, 'file')), { code: 'EEXIST', syscall: 'mkdir', path: join(dir, 'file') });
  t.throws(() => makeDirectories(join(dir, 'file', 'below')), { code: 'ENOTDIR' });
});

t.test('a directory the kernel will not make is an error, not a loop', { skip: !existsSync('/proc/self') && 'no /proc here' }, async (t) => {
  t.throws(() => makeDirectories('/proc/tokengate-nope/x'), { code: 'ENOENT', syscall: 'mkdir', path: '/proc/tokengate-nope' });
});
