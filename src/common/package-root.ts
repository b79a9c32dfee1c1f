import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'timemark';

/**
 * The directory of Timemark's package.json, found upwards from this module: the same from the
 * sources (src/common/) and the build (build/src/common/), in the repository and installed.
 */
export function packageRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) return directory;
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`No package.json of ${PACKAGE_NAME} above ${fileURLToPath(import.meta.url)}; the package is incomplete.`);
    directory = parent;
  }
}
