// Where the project's own files (package.json, config/) are, wherever the compiled code runs from
// (dist/ for the product, another build directory for a developer's run): the nearest ancestor
// directory holding a package.json.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'config'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the project root (package.json beside config/)');
    dir = up;
  }
}

export const PROJECT_ROOT = findRoot();
export const projectFile = (...parts: string[]): string => join(PROJECT_ROOT, ...parts);
