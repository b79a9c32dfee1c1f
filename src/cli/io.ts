import type { Readable } from 'node:stream';

/** Where a command writes; the entry file passes the process's streams, tests may pass others. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Standard input, for commands that read it (`ingest` without files). */
  stdin?: () => Readable;
  /** Present when stderr is a terminal: where a progress line is redrawn in place. */
  terminal?: { write(text: string): void; columns: number };
  /** Present when stdout is a terminal: its width, for output meant to be read there (tables). */
  stdoutColumns?: number;
}

export const processIo = (): CliIo => ({
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  env: process.env,
  stdin: () => process.stdin,
  terminal: process.stderr.isTTY ? { write: (text) => process.stderr.write(text), columns: process.stderr.columns } : undefined,
  stdoutColumns: process.stdout.isTTY ? process.stdout.columns : undefined,
});

/** Resolves when the process is asked to stop (SIGINT or SIGTERM). */
export function untilStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

/** Exits anyway if a graceful shutdown hangs; unref'd so it never keeps a clean exit waiting. */
export function forceExitAfter(ms: number): void {
  setTimeout(() => {
    process.stderr.write(`Shutdown took longer than ${ms} ms; exiting now.\n`);
    process.exit(1);
  }, ms).unref();
}

/**
 * The life of a long-running command (serve, bridge, start): start the part, print its banner,
 * wait for SIGINT or SIGTERM, then close it gracefully, exiting anyway after `graceMs`.
 */
export async function runUntilStopped<T extends { close(): Promise<void> }>(
  io: CliIo,
  part: { start(): Promise<T>; banner(running: T): string; stopping: string; graceMs: number },
): Promise<number> {
  // Listen for signals before announcing readiness: a supervisor may stop us right after.
  const stopRequested = untilStopSignal();
  const running = await part.start();
  io.out(part.banner(running));
  const signal = await stopRequested;
  io.err(`Received ${signal}; ${part.stopping}`);
  forceExitAfter(part.graceMs);
  await running.close();
  return 0;
}
