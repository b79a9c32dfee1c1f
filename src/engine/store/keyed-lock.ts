/**
 * Shared and exclusive locks by key, granted in arrival order. A dataset's appends that leave its
 * schema as it is share the lock and run at once (DuckDB's appends never conflict with each
 * other); schema changes, trims and drops take it alone, because DuckDB fails an insert into a
 * table whose schema another transaction changed meanwhile.
 */
export class KeyedLock {
  private readonly states = new Map<string, LockState>();

  /** Runs `task` alongside other shared holders of `key`. */
  shared<T>(key: string, task: () => Promise<T>): Promise<T> {
    return this.acquire(key, false, task);
  }

  /** Runs `task` as the only holder of `key`. */
  exclusive<T>(key: string, task: () => Promise<T>): Promise<T> {
    return this.acquire(key, true, task);
  }

  /** Resolves once every task queued so far has finished. */
  async drain(): Promise<void> {
    while (this.states.size > 0) await Promise.all([...this.states.values()].map((state) => state.idle));
  }

  private acquire<T>(key: string, exclusive: boolean, task: () => Promise<T>): Promise<T> {
    let state = this.states.get(key);
    if (!state) {
      let resolveIdle: () => void = () => undefined;
      const idle = new Promise<void>((resolve) => (resolveIdle = resolve));
      state = { holders: 0, exclusive: false, waiting: [], idle, resolveIdle };
      this.states.set(key, state);
    }
    const current = state;
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        current.holders++;
        current.exclusive = exclusive;
        task()
          .then(resolve, reject)
          .finally(() => {
            current.holders--;
            this.grant(key, current);
          });
      };
      current.waiting.push({ exclusive, start });
      this.grant(key, current);
    });
  }

  /** Starts waiters from the front of the queue for as long as they are compatible with the holders. */
  private grant(key: string, state: LockState): void {
    while (state.waiting.length > 0) {
      const next = state.waiting[0] as Waiter;
      const free = state.holders === 0;
      if (!free && (next.exclusive || state.exclusive)) return;
      state.waiting.shift();
      next.start();
    }
    if (state.holders === 0) {
      this.states.delete(key);
      state.resolveIdle();
    }
  }
}

interface Waiter {
  exclusive: boolean;
  start: () => void;
}

interface LockState {
  holders: number;
  exclusive: boolean;
  waiting: Waiter[];
  idle: Promise<void>;
  resolveIdle: () => void;
}
