import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareDataDir } from '../../src/common/data-dir.js';
import { DataDirError } from '../../src/common/errors.js';
import { makeTempDir } from '../helpers/local-service.js';

describe('prepareDataDir', () => {
  it('creates the directory and its missing parents, readable by the owner only, and leaves nothing behind', () => {
    const root = makeTempDir('prepare');
    const dataDir = join(root, 'a', 'b', 'c');
    prepareDataDir(dataDir, '--data-dir / TIMEMARK_DATA_DIR');
    expect(statSync(dataDir).isDirectory()).toBe(true);
    expect(statSync(join(root, 'a')).mode & 0o777).toBe(0o700);
    expect(readdirSync(dataDir)).toEqual([]);
    // A second start finds it ready.
    prepareDataDir(dataDir, '--data-dir / TIMEMARK_DATA_DIR');
    rmSync(root, { recursive: true, force: true });
  });

  it('throws a DataDirError on a pseudo file system instead of retrying forever', () => {
    expect(() => prepareDataDir('/proc/1/timemark/deeper', '--data-dir / TIMEMARK_DATA_DIR')).toThrow(DataDirError);
    expect(() => prepareDataDir('/sys/timemark', '--data-dir / TIMEMARK_DATA_DIR')).toThrow(/\/sys is on the sysfs pseudo file system/);
  });
});
