// Builds the web page into dist/web: esbuild bundles web/src/main.ts and web/src/style.css under
// content-hashed names, the HTML shell is written to point at them, and every file is also stored
// brotli- and gzip-compressed so the server never compresses at request time.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');
const assets = join(out, 'assets');
rmSync(out, { recursive: true, force: true });
mkdirSync(assets, { recursive: true });

const result = await build({
  entryPoints: { app: join(root, 'web/src/main.ts'), style: join(root, 'web/src/style.css') },
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  minify: true,
  sourcemap: 'linked',
  entryNames: '[name]-[hash]',
  outdir: assets,
  metafile: true,
  logLevel: 'warning',
});

const built = Object.keys(result.metafile.outputs).map((p) => basename(p));
const pick = (prefix, ext) => {
  const name = built.find((n) => n.startsWith(prefix) && n.endsWith(ext));
  if (!name) throw new Error(`build-web: no ${prefix}*${ext} in the output`);
  return name;
};
const shell = readFileSync(join(root, 'web/index.html'), 'utf8')
  .replace('{{APP}}', `/assets/${pick('app-', '.js')}`)
  .replace('{{STYLE}}', `/assets/${pick('style-', '.css')}`);
writeFileSync(join(out, 'index.html'), shell);

const files = [join(out, 'index.html'), ...readdirSync(assets).map((n) => join(assets, n))];
for (const file of files) {
  const data = readFileSync(file);
  writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
  writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
}
console.log(`web: ${files.length} files in dist/web`);
