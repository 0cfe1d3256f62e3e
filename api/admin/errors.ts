/**
 * The administration area's errors as named factories, rendered as
 * `{statusCode, error, message, code}`. The `…NotFound` factories return thunks
 * because the access module calls them only when the caller has nothing in the
 * target's organization (404 rather than 403).
 */
import { HttpError, notFound } from '../http/errors';

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
