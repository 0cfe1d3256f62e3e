/**
 * A signal that aborts when the activity is cancelled or a time limit
 * passes. The timer is held here (and cleared when the work ends) rather
 * than combined with `AbortSignal.any([signal, AbortSignal.timeout(ms)])`:
 * on Node 20 the composite may lose its timeout signal to garbage collection
 * and never fire.
 */
export async function withDeadline<T>(signal: AbortSignal, ms: number, work: (deadline: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`no result within ${ms} ms`, 'TimeoutError')), ms);
  const onCancel = () => controller.abort(signal.reason);
  signal.addEventListener('abort', onCancel, { once: true });
  if (signal.aborted) onCancel();
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onCancel);
  }
}
