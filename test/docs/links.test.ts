// Every relative link of the documentation leads somewhere: the file it names exists and its
// #anchor is a heading there. A renamed heading or a moved page fails here, not in a reader's browser.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { repositoryRoot } from '../fitness/checker.js';
import { anchorsOf, brokenLinks, linksOf, slug } from './markdown-links.fixture.js';

const markdownIn = (folder: string): string[] =>
  readdirSync(join(repositoryRoot, folder)).filter((name) => name.endsWith('.md')).map((name) => `${folder}/${name}`);

const DOCUMENTS = [
  'README.md',
  ...markdownIn('docs'),
  'bench/README.md',
  ...readdirSync(join(repositoryRoot, 'examples')).map((name) => `examples/${name}/README.md`),
  'test/fixtures/recorded/README.md',
];

t.test('every relative link and #anchor of the documentation resolves', async (t) => {
  t.ok(DOCUMENTS.length > 10, 'the pages are found');
  for (const file of DOCUMENTS) t.same(brokenLinks(repositoryRoot, file), [], file);
});

t.test('the check finds what is broken', async (t) => {
  t.equal(slug('The timeline page and API'), 'the-timeline-page-and-api');
  t.equal(slug('Tokenize (merchant-supplied token ids)'), 'tokenize-merchant-supplied-token-ids');
  t.equal(slug('`WORKERS` and [scaling](x.md) out: 2/3'), 'workers-and-scaling-out-23');
  t.same([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n<a id="here"></a>\n')], ['a', 'a-1', 'here']);
  t.same(linksOf('[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n[d]: w.md#e\n![i](p.png "t")').map((l) => `${l.line} ${l.target}`),
    ['1 x.md', '5 w.md#e', '6 p.png']);

  const root = mkdtempSync(join(tmpdir(), 'links-'));
  writeFileSync(join(root, 'other.md'), '# Other page\n## Its part\n');
  writeFileSync(join(root, 'page.md'), [
    '# Page', '[fine](other.md#its-part) [fine](#page) [web](https://example.org/#x)',
    '[gone](missing.md) [no anchor](other.md#nothing) [here](#nowhere) [out](../x.md)',
  ].join('\n'));
  t.same(brokenLinks(root, 'page.md'), [
    'page.md:3 missing.md: no file missing.md',
    'page.md:3 other.md#nothing: no heading #nothing in other.md',
    'page.md:3 #nowhere: no heading #nowhere in page.md',
    'page.md:3 ../x.md: outside the repository',
  ]);
});
