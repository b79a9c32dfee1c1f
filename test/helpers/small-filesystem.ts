/**
 * A small filesystem of its own for a test that fills a disk: a tmpfs mounted on a fresh
 * directory (which needs root; `mounted` says whether it worked), filled up by `fill()` and freed
 * by `free()`, unmounted and removed by `remove()`.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallFilesystem {
  readonly mountPoint: string;
  readonly mounted: boolean;
  /** Writes zeros into a filler file until the filesystem refuses even one more byte. */
  fill(): void;
  /** Removes the filler file: the space is back. */
  free(): void;
  remove(): void;
}

export function mountSmallFilesystem(prefix: string, sizeMb: number): SmallFilesystem {
  const mountPoint = mkdtempSync(join(tmpdir(), prefix));
  const filler = join(mountPoint, 'filler');
  let mounted = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m`, 'tmpfs', mountPoint], { stdio: 'ignore' });
    mounted = true;
  } catch {
    // Not root (or no mount): the test says why it did not run.
  }
  return {
    mountPoint,
    mounted,
    fill() {
      const fd = openSync(filler, 'w');
      try {
        for (const size of [1024 * 1024, 4096, 1]) {
          const chunk = Buffer.alloc(size);
          for (;;) {
            try {
              writeSync(fd, chunk);
            } catch {
              break;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
    },
    free() {
      rmSync(filler, { force: true });
    },
    remove() {
      if (mounted) execFileSync('umount', [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    },
  };
}
