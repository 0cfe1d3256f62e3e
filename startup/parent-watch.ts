/**
 * Notices that the process that started us is gone. `npm start` runs us under npm (the
 * script `exec`s node, so npm is our parent); a process manager or a closing terminal may
 * kill npm without a signal reaching us (SIGKILL, or a SIGHUP npm does not pass on). The
 * kernel then hands us to another parent, which `process.ppid` shows; without this check
 * the service, its PostgreSQL and its Temporal server would keep serving with nobody to
 * stop them.
 */
const CHECK_EVERY_MS = 1000;

/** Calls `onGone` once, within about a second of the parent's exit; returns the function that stops watching. */
export function watchParent(onGone: () => void, everyMs = CHECK_EVERY_MS): () => void {
  const parent = process.ppid;
  // Started by init (a container's PID 1, or already orphaned): there is no parent to outlive.
  if (parent <= 1) return () => {};
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
