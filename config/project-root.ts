/**
 * The repository (or image) root: the nearest folder above this file with a
 * package.json. Files shipped beside the code (the console's sources, docs/) are
 * found from here, whether the code runs from source (tsx) or from dist/.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('cannot find the project root (package.json) above ' + __dirname);
    dir = parent;
  }
  return dir;
}
