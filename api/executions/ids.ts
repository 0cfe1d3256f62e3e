/** Server-minted identifiers of executions and signal deliveries (OS CSPRNG). */
import { randomBytes } from 'node:crypto';

export const newExecutionId = (): string => `exec_${randomBytes(16).toString('hex')}`;
export const newSignalId = (): string => `sig_${randomBytes(16).toString('hex')}`;
