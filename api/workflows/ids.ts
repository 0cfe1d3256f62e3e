/** Server-minted identifiers and tokens: prefix plus random bits from the OS CSPRNG. */
import { randomBytes } from 'node:crypto';
import { randomHex } from '../http/random-hex';

export const newWorkflowId = (): string => `wf_${randomHex(12)}`;
export const newConfigEntryId = (): string => `cfg_${randomHex(12)}`;
/** 192 random bits, URL-safe. */
export const newWebhookToken = (): string => randomBytes(24).toString('base64url');
