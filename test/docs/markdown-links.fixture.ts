// The relative links of a Markdown file and whether each one resolves: the file (or folder) it
// names exists, and its #anchor is a heading (or an explicit id) of the Markdown file it names,
// with GitHub's rule for a heading's anchor. Links to other sites are not followed.
// Named *.fixture.ts so tap does not run it as a test file.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

export interface Link {
  readonly line: number;
  readonly target: string;
}

/** The text outside fenced code blocks, line by line (a fenced line becomes empty: numbers stay right). */
function prose(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      return '';
    }
    return fence === undefined ? line : '';
  });
}

/** A line without its code spans: a link written inside backticks is an example, not a link. */
const withoutCode = (line: string): string => line.replace(/(`+)[\s\S]*?\1/g, '');

/** Every inline link and image `[text](target)` and reference definition `[name]: target`. */
export function linksOf(markdown: string): Link[] {
  const found: Link[] = [];
  prose(markdown).forEach((raw, index) => {
    const line = withoutCode(raw);
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ line: index + 1, target: match[1] as string });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (definition) found.push({ line: index + 1, target: definition[1] as string });
  });
  return found;
}

/** GitHub's anchor for a heading's text: inline markup dropped, lower case, punctuation removed, spaces to hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .replace(/(^|\s)_+|_+(\s|$)/g, '$1$2')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors a Markdown file offers: its headings (repeats numbered as GitHub does) and explicit ids. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(match[1] as string);
  }
  return anchors;
}

/** The links of `file` (a path under `root`) that do not resolve, each said as `file:line target: why`. */
export function brokenLinks(root: string, file: string): string[] {
  const path = join(root, file);
  const broken: string[] = [];
  for (const { line, target } of linksOf(readFileSync(path, 'utf8'))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const hash = target.indexOf('#');
    const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const resolved = pathPart === '' ? path : join(dirname(path), pathPart);
    const where = `${file}:${line} ${target}`;
    if (relative(root, resolved).startsWith('..')) broken.push(`${where}: outside the repository`);
    else if (!existsSync(resolved)) broken.push(`${where}: no file ${relative(root, resolved)}`);
    else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) {
      broken.push(`${where}: no heading #${anchor} in ${relative(root, resolved)}`);
    }
  }
  return broken;
}
