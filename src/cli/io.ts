/** Where a command writes; the entry file passes the process's streams, tests may pass others. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
}

export const processIo = (): CliIo => ({
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  env: process.env,
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
