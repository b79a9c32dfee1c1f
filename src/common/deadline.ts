/**
 * Settles like `work`, or rejects with `onTimeout()` once `ms` have passed. The work itself goes
 * on (a promise cannot be cancelled): callers use this where a late result is harmless.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  // One promise and one timer; a race of two promises and a finally cost three more per call on
  // paths that take thousands of calls a second (the bridge's acknowledgements).
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
