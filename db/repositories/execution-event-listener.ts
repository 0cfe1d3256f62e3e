/**
 * Notifications of new execution events: the trigger of migration 1763740000000 NOTIFYs the
 * `execution_events` channel with the execution id whenever events commit. Listening holds a
 * connection of the pool for itself (subscribed, so never given back: `close` destroys it).
 */
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

const CHANNEL = 'execution_events';

export interface ExecutionEventListener {
  /** Stops listening and destroys the connection. */
  close(): void;
}

/**
 * LISTENs on a connection of its own: `onEvent(executionId)` per notification; `onLost` once when
 * the connection fails (it is already closed then; the caller opens another). Rejects when the
 * connection or the LISTEN fails.
 */
export async function listenForExecutionEvents(
  dataSource: DataSource,
  onEvent: (executionId: string) => void,
  onLost: () => void,
): Promise<ExecutionEventListener> {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  const client = await pool.connect();
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    client.release(true);
  };
  client.on('notification', (message) => {
    if (message.channel === CHANNEL && message.payload) onEvent(message.payload);
  });
  client.on('error', () => {
    close();
    onLost();
  });
  try {
    await client.query(`LISTEN ${CHANNEL}`);
  } catch (error) {
    close();
    throw error;
  }
  return { close };
}
