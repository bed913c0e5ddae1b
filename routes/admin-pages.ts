// The admin's pages (web/): each page's own stylesheets and scripts, kept in files of their own,
// are written into it when it is read, so that the browser gets one document whose inline code the
// Content-Security-Policy allows by hash (admin-guard.ts) and nothing else is ever fetched.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { PROJECT_ROOT } from '../config.js';

const WEB = join(PROJECT_ROOT, 'web');

/** A file of the folder by its plain name (letters, digits, '-'), never a path. */
function asset(dir: string, name: string): string {
  if (!/^[a-z0-9-]+\.(css|js)$/.test(name)) throw new Error(`web/: '${name}' is not the name of a page's stylesheet or script`);
  return readFileSync(join(dir, name), 'utf8');
}

/** web/<name>.html (or another folder's) with its `<link rel="stylesheet" href="x.css">` and `<script src="x.js"></script>` written in. */
export function loadPage(name: string, dir: string = WEB): string {
  return readFileSync(join(dir, `${name}.html`), 'utf8')
    .replace(/<link rel="stylesheet" href="([^"]+)">/g, (_tag, file: string) => `<style>\n${asset(dir, file)}</style>`)
    .replace(/<script src="([^"]+)"><\/script>/g, (_tag, file: string) => `<script>\n${asset(dir, file)}</script>`);
}

/** The pages: the timeline (events and requests) and the history; their icon (a browser asks for one). */
export function pageRoutes(app: FastifyInstance, pages: { timeline: string; history: string }): void {
  const icon = readFileSync(join(WEB, 'favicon.svg'));
  app.get('/admin', async (_request, reply) => reply.redirect('/admin/timeline'));
  // Not an API: left out of the API reference.
  app.get('/admin/favicon.svg', { schema: { hide: true } }, async (_request, reply) => reply.type('image/svg+xml').header('cache-control', 'max-age=86400').send(icon));
  app.get('/admin/timeline', async (_request, reply) => reply.type('text/html; charset=utf-8').send(pages.timeline));
  app.get('/admin/history', async (_request, reply) => reply.type('text/html; charset=utf-8').send(pages.history));
}
