/**
 * One local activity at a time per run. Temporal replays a local activity's
 * result from its marker, and when two are in flight the order in which their
 * results reach the workflow can differ between the first run and a replay;
 * what the workflow schedules next then differs too (a nondeterminism error).
 * Every local activity of the execution workflow (persistence and light steps)
 * goes through this lane, in the order it was asked for, so each result is the
 * only one that can arrive and the order is the same on replay.
 */
export class LocalActivityLane {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(call: () => Promise<T>): Promise<T> {
    const result = this.tail.then(call);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
