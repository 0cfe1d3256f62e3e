/** Server-minted execution ids (OS CSPRNG): the workflow id of the execution's Temporal run too. */
import { randomBytes } from 'node:crypto';

export const newExecutionId = (): string => `exec_${randomBytes(16).toString('hex')}`;
