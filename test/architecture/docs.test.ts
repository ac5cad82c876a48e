// The repository describes itself: README.md and docs/ link only to files of the repository (never to
// the team's notes outside it), every relative link and #anchor resolves, and the API guide exists,
// is linked from the README and points to the served contract documents.
import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    out.add(m[1].trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'));
  }
  return out;
}

t.test('no page points outside the repository', async (t) => {
  // docs/ARCHITECTURE.md is the repository's own page; any other ARCHITECTURE.md is the team's notes.
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8');
    t.notMatch(text, /\.\.\/shared|\/work\/|bot-service-spec\.md|CONTRACT\.md|RULES\.md|(?<!docs\/)ARCHITECTURE\.md/, `${page} names no file a clone lacks`);
  }
});

t.test('every relative link and anchor resolves', async (t) => {
  let checked = 0;
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1];
      if (/^[a-z]+:/.test(target)) continue; // http(s), mailto: not ours to check
      const [file, anchor] = target.split('#');
      const path = file === '' ? join(root, page) : resolve(dirname(join(root, page)), file);
      checked++;
      if (!existsSync(path)) {
        t.fail(`${page}: ${target} does not exist`);
        continue;
      }
      if (anchor !== undefined && path.endsWith('.md') && !anchors(readFileSync(path, 'utf8')).has(anchor)) {
        t.fail(`${page}: ${target} names no heading`);
      }
    }
  }
  t.ok(checked > 10, `${checked} links checked`);
});

t.test('the API guide is linked from the README and points to the served contract', async (t) => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  t.match(readme, '](docs/API.md)');
  const guide = readFileSync(join(root, 'docs/API.md'), 'utf8');
  for (const doc of ['/openapi.json', '/asyncapi.json']) t.match(guide, doc);
  for (const topic of ['Identities and tokens', 'Seeks, the lobby and human guests', 'The legal-move tree', 'Streams', 'Clocks', 'Errors and limits', 'Fair dice']) {
    t.ok(anchors(guide).has(topic.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')), `covers ${topic}`);
  }
});
