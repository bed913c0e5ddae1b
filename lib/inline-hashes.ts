// The SHA-256 source expressions of the inline scripts and styles of pages tokengate serves, for
// their Content-Security-Policy: each page may run its own inline code and nothing else (the admin
// pages, routes/admin-guard.ts; the hosted fields' frames, routes/hosted-session.ts).
import { createHash } from 'node:crypto';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The hashes of every inline `<script>` or `<style>` of the pages, each once. */
export function inlineHashes(pages: readonly string[], tag: 'script' | 'style'): string[] {
  const pattern = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'g');
  return [...new Set(pages.flatMap((page) => [...page.matchAll(pattern)].map((m) => sha256(m[1] as string))))];
}
