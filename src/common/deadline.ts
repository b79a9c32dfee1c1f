/**
 * Settles like `work`, or rejects with `onTimeout()` once `ms` have passed. The work itself goes
 * on (a promise cannot be cancelled): callers use this where a late result is harmless.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
