/**
 * Task queues with long polls. A task waits in its queue until a poller takes it;
 * a poller waits until a task arrives, its timeout passes (then it gets nothing and
 * answers with the all-default response) or its client cancels (then it takes nothing).
 */
export interface QueuedTask {
  /** False once the task is stale (run closed, task superseded); stale tasks are dropped. */
  isValid(): boolean;
}

export interface PollOptions {
  /** Real milliseconds until the poll gives up. */
  timeoutMs: number;
  /** Registers a callback for a client-side cancel. */
  onCancel(listener: () => void): void;
  isCancelled(): boolean;
}

interface Poller<T> {
  take(task: T): void;
  gone: boolean;
}

interface Queue<T> {
  tasks: T[];
  pollers: Array<Poller<T>>;
}

export type TaskKind = 'workflow' | 'activity';

export class TaskQueues<T extends QueuedTask> {
  private readonly queues = new Map<string, Queue<T>>();

  private queue(namespace: string, kind: TaskKind, name: string): Queue<T> {
    const key = `${namespace}\u0000${kind}\u0000${name}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = { tasks: [], pollers: [] };
      this.queues.set(key, queue);
    }
    return queue;
  }

  add(namespace: string, kind: TaskKind, name: string, task: T): void {
    const queue = this.queue(namespace, kind, name);
    while (queue.pollers.length > 0) {
      const poller = queue.pollers.shift() as Poller<T>;
      if (poller.gone) continue;
      if (!task.isValid()) return;
      poller.gone = true;
      poller.take(task);
      return;
    }
    queue.tasks.push(task);
  }

  /** Resolves with `take(task)` for the first valid task, or undefined on timeout / cancel. */
  poll<R>(namespace: string, kind: TaskKind, name: string, options: PollOptions, take: (task: T) => R): Promise<R | undefined> {
    const queue = this.queue(namespace, kind, name);
    while (queue.tasks.length > 0) {
      const task = queue.tasks.shift() as T;
      if (task.isValid()) return Promise.resolve(take(task));
    }
    if (options.isCancelled()) return Promise.resolve(undefined);
    return new Promise<R | undefined>((resolve) => {
      const poller: Poller<T> = {
        gone: false,
        take: (task) => {
          clearTimeout(timer);
          try {
            resolve(take(task));
          } catch (error) {
            console.error('[temporal-stand-in] dispatch failed', error);
            resolve(undefined);
          }
        },
      };
      const giveUp = (): void => {
        if (poller.gone) return;
        poller.gone = true;
        clearTimeout(timer);
        const index = queue.pollers.indexOf(poller);
        if (index >= 0) queue.pollers.splice(index, 1);
        resolve(undefined);
      };
      const timer = setTimeout(giveUp, Math.max(0, options.timeoutMs));
      options.onCancel(giveUp);
      queue.pollers.push(poller);
    });
  }

  /** Removes and returns the queued tasks matching `predicate`. */
  extract(namespace: string, kind: TaskKind, name: string, predicate: (task: T) => boolean): T[] {
    const queue = this.queue(namespace, kind, name);
    const taken = queue.tasks.filter(predicate);
    queue.tasks = queue.tasks.filter((task) => !predicate(task));
    return taken;
  }

  /** Ends every waiting poll with nothing (server shutdown). */
  close(): void {
    for (const queue of this.queues.values()) {
      for (const poller of queue.pollers) poller.gone = true;
      queue.pollers = [];
    }
  }
}
