/** Maps over a list with at most `limit` calls in flight; results keep the input order. */
export async function mapLimit<T, R>(values: T[], limit: number, fn: (value: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(values.length);
  let next = 0;
  const worker = async () => {
    while (next < values.length) {
      const index = next++;
      results[index] = await fn(values[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, values.length)) }, worker));
  return results;
}

/** Runs calls with at most `limit` in flight; the others wait in arrival order (deterministic, so fine in a workflow). */
export function createLimiter(limit: number): <T>(call: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(call: () => Promise<T>): Promise<T> => {
    // A waiter is handed the slot of the call that finishes, so `active` never overshoots.
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else active += 1;
    try {
      return await call();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active -= 1;
    }
  };
}
