/** Server-minted identifiers and tokens: prefix plus random bits from the OS CSPRNG. */
import { randomBytes } from 'node:crypto';

export const newWorkflowId = (): string => `wf_${randomBytes(12).toString('hex')}`;
export const newConfigEntryId = (): string => `cfg_${randomBytes(12).toString('hex')}`;
/** 192 random bits, URL-safe. */
export const newWebhookToken = (): string => randomBytes(24).toString('base64url');
