// The uWebSockets.js build this project uses ships native binaries for Node 16, 18 and 20 only, and
// on any other Node (or with UWS_USE_FALLBACK set) it quietly swaps in a slow JavaScript imitation
// with different behaviour. The server must run on the native binding or not at all, so `serve`
// asks here first, before anything imports the package.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface Runtime {
  readonly platform: string;
  readonly arch: string;
  /** process.versions.modules: the native ABI (93 = Node 16, 108 = Node 18, 115 = Node 20). */
  readonly modules: string;
  readonly nodeVersion: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const current = (): Runtime => ({
  platform: process.platform,
  arch: process.arch,
  modules: process.versions.modules,
  nodeVersion: process.version,
  env: process.env,
});

/** Undefined when the native binding loads here; otherwise one line saying why and what to do. */
export function nativeBindingProblem(rt: Runtime = current()): string | undefined {
  const fallback = rt.env.UWS_USE_FALLBACK;
  if (fallback !== undefined && fallback !== '' && fallback.toLowerCase() !== 'false' && fallback !== '0') {
    return 'UWS_USE_FALLBACK is set: dicechess serves only on the native uWebSockets.js binding; unset it';
  }
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('uWebSockets.js/package.json'));
  const binary = join(root, 'binaries', `uws_${rt.platform}_${rt.arch}_${rt.modules}.node`);
  if (!existsSync(binary)) {
    return `dicechess serve needs Node.js 20 (its uWebSockets.js build has native binaries for Node 16, 18 and 20 only); this is Node ${rt.nodeVersion} on ${rt.platform}-${rt.arch}`;
  }
  try {
    // The package's own loader requires this same file, so it is loaded once, from the cache.
    require(binary);
  } catch (e) {
    const first = ((e as Error).message ?? String(e)).split('\n')[0];
    return `the native uWebSockets.js binding does not load on this machine (${first})`;
  }
  return undefined;
}
