/** Server-minted identifiers of executions and signal deliveries (OS CSPRNG). */
import { randomHex } from '../http/random-hex';

export const newExecutionId = (): string => `exec_${randomHex(16)}`;
export const newSignalId = (): string => `sig_${randomHex(16)}`;
