/**
 * The administration area's errors as named factories, rendered as
 * `{statusCode, error, message, code}`. The `…NotFound` factories return thunks
 * because the access module calls them only when the caller has nothing in the
 * target's organization (404 rather than 403).
 */
import { HttpError, notFound, tooManyRequests } from '../http/errors';

export const organizationNotFound = (id: number | string) => () => notFound(`Organization ${id} not found.`, 'ORGANIZATION.NOT_FOUND');
export const accountNotFound = (id: number) => () => notFound(`Account ${id} not found.`, 'ACCOUNT.NOT_FOUND');
export const userNotFound = (id: number) => () => notFound(`User ${id} not found.`, 'USER.NOT_FOUND');
export const grantNotFound = (id: number) => () => notFound(`Grant ${id} not found.`, 'RESOURCE_GRANTS.NOT_FOUND');
export const serviceSpecificationNotFound = (id: string) => () =>
  notFound(`Service specification ${id} not found.`, 'SERVICE_SPECIFICATION.NOT_FOUND');
export const providerSpecificationNotFound = (id: string) => () =>
  notFound(`Provider specification ${id} not found.`, 'PROVIDER_SPECIFICATION.NOT_FOUND');
export const serviceNotFound = (id: string) => () => notFound(`Service ${id} not found.`, 'SERVICE.NOT_FOUND');
export const actionNotFound = (id: string) => notFound(`Action ${id} not found.`, 'ACTION.NOT_FOUND');
export const tooManyActionMessages = (max: number) =>
  new HttpError(
    400,
    'ACTION.TOO_MANY_MESSAGES',
    `The action would hold more than ${max} messages (ACTION_MAX_MESSAGES); nothing was changed.`,
  );

export const accountSlugTaken = (slug: string) =>
  new HttpError(409, 'ACCOUNT.SLUG_TAKEN', `An account with slug "${slug}" already exists in the organization.`);

export const apiKeyNotFound = (id: number) => notFound(`API key ${id} not found.`, 'API_KEY.NOT_FOUND');
export const invalidApiKey = () => new HttpError(401, 'API_KEY.INVALID', 'The API key is unknown, revoked or expired.');
export const apiKeyAttemptsExceeded = (retryAfterSeconds: number) =>
  tooManyRequests('Too many API key exchanges; retry later.', retryAfterSeconds, 'API_KEY.TOO_MANY_ATTEMPTS');
export const apiKeyExpiryOutOfRange = (maxDays: number) =>
  new HttpError(
    400,
    'API_KEY.EXPIRY_OUT_OF_RANGE',
    `expires_at must be in the future and at most ${maxDays} days away (API_KEY_MAX_DAYS).`,
  );
export const apiKeyFromApiKey = () =>
  new HttpError(
    403,
    'API_KEY.NOT_FROM_API_KEY',
    "An API key's token cannot create or change API keys; use a person's or service account's own token.",
  );
export const apiKeyGrantsRefused = (failures: Array<{ code: string; detail: string; index: number }>) =>
  new HttpError(400, 'API_KEY.INVALID_GRANTS', `The API key's grants were refused: ${failures[0].detail}`, {
    extra: { cause: failures[0], causes: failures },
  });
