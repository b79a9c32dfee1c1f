/**
 * A full disk under the data dir, seen the same way whoever hit it: Node's file calls (`ENOSPC`,
 * `EDQUOT`), SQLite (`SQLITE_FULL`, "database or disk is full") and DuckDB ("No space left on
 * device"). A disk fills up for a while, an episode: the watch logs one error line when an episode
 * begins and one line when it ends, however many requests fail in between, and says `disk full`
 * in /readyz meanwhile. It notices the end by itself, by writing a probe file now and then, so
 * that the service takes writes again without a restart.
 */
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { InsufficientStorageError, type TimemarkError } from './errors.js';

const FULL_CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const FULL_MESSAGE = /no space left on device|disk is full|disk quota exceeded|\bENOSPC\b|\bEDQUOT\b/i;

/** Whether `error`, or an error it was caused by, says that the disk is full. */
export function isDiskFull(error: unknown): boolean {
  for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 8; depth++) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
    if (typeof message === 'string' && FULL_MESSAGE.test(message)) return true;
    current = cause;
  }
  return false;
}

/** The probe must fit where the next real write would: a little more than one of the stores' pages. */
const PROBE_BYTES = 1024 * 1024;
const PROBE_EVERY_MS = 5_000;

export interface DiskWatch {
  /** The 507 to answer for a disk-full error (noting the episode), undefined for any other error. */
  translate(error: unknown): TimemarkError | undefined;
  /** Notes a disk-full error of background work; false when `error` is something else. */
  noteBackground(error: unknown): boolean;
  /** Readiness: throws `disk full` during an episode, unless a probe finds space again. */
  check(): Promise<void>;
  close(): void;
}

export interface DiskWatchOptions {
  dataDir: string;
  /** How the user sets the data dir, for the reply: `--data-dir / TIMEMARK_DATA_DIR`. */
  setting: string;
  logger: Logger;
  probeEveryMs?: number;
  /** Called when an episode ends, for work that waits on a pause before retrying by itself. */
  onSpaceBack?: () => void;
}

export function createDiskWatch(options: DiskWatchOptions): DiskWatch {
  let episode: { since: number; timer: NodeJS.Timeout } | undefined;
  let probing: Promise<boolean> | undefined;

  function begin(error: unknown): void {
    if (episode) return;
    const timer = setInterval(() => void probe(), options.probeEveryMs ?? PROBE_EVERY_MS);
    timer.unref();
    episode = { since: Date.now(), timer };
    options.logger.error(
      { err: error, dataDir: options.dataDir },
      `disk full: the disk holding the data dir is full; writes answer 507 until space is freed (checked every ${(options.probeEveryMs ?? PROBE_EVERY_MS) / 1000} s)`,
    );
  }

  /** True when a write of PROBE_BYTES fits again (and ends the episode). */
  function probe(): Promise<boolean> {
    probing ??= (async () => {
      const file = join(options.dataDir, `.space-probe-${process.pid}`);
      try {
        const handle = await open(file, 'w');
        try {
          await handle.write(Buffer.alloc(PROBE_BYTES));
          await handle.datasync();
        } finally {
          await handle.close();
        }
        end();
        return true;
      } catch {
        return false;
      } finally {
        await rm(file, { force: true });
        probing = undefined;
      }
    })();
    return probing;
  }

  function end(): void {
    if (!episode) return;
    clearInterval(episode.timer);
    options.logger.info({ dataDir: options.dataDir, seconds: Math.round((Date.now() - episode.since) / 1000) }, 'disk space available again: writes are taken again');
    episode = undefined;
    options.onSpaceBack?.();
  }

  return {
    translate(error) {
      if (!isDiskFull(error)) return undefined;
      begin(error);
      return new InsufficientStorageError(
        `The disk holding the data dir ${options.dataDir} is full, so nothing was written. Free space on it, or move the data dir (${options.setting}) to a larger disk; then send the request again.`,
        { cause: error },
      );
    },
    noteBackground(error) {
      if (!isDiskFull(error)) return false;
      begin(error);
      return true;
    },
    async check() {
      if (episode && !(await probe())) throw new Error('disk full');
    },
    close() {
      if (episode) clearInterval(episode.timer);
      episode = undefined;
    },
  };
}
