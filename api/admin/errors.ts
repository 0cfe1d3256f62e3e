/**
 * The administration area's errors as named factories, rendered as
 * `{statusCode, error, message, code}`: plain functions answering an HttpError.
 * Where the access module needs a not-found only on a refusal (nothing in the
 * target's organization: 404 rather than 403), callers pass `() => userNotFound(id)`.
 */
import { HttpError, notFound, tooManyRequests, type FieldError } from '../http/errors';

export const organizationNotFound = (id: number | string) => notFound(`Organization ${id} not found.`, 'ORGANIZATION.NOT_FOUND');
export const accountNotFound = (id: number) => notFound(`Account ${id} not found.`, 'ACCOUNT.NOT_FOUND');
export const userNotFound = (id: number) => notFound(`User ${id} not found.`, 'USER.NOT_FOUND');
export const grantNotFound = (id: number) => notFound(`Grant ${id} not found.`, 'RESOURCE_GRANTS.NOT_FOUND');
export const serviceSpecificationNotFound = (id: string) =>
  notFound(`Service specification ${id} not found.`, 'SERVICE_SPECIFICATION.NOT_FOUND');
export const providerSpecificationNotFound = (id: string) =>
  notFound(`Provider specification ${id} not found.`, 'PROVIDER_SPECIFICATION.NOT_FOUND');
export const serviceNotFound = (id: string) => notFound(`Service ${id} not found.`, 'SERVICE.NOT_FOUND');
export const actionNotFound = (id: string) => notFound(`Action ${id} not found.`, 'ACTION.NOT_FOUND');
export const tooManyActionMessages = (max: number) =>
  new HttpError(
    400,
    'ACTION.TOO_MANY_MESSAGES',
    `The action would hold more than ${max} messages (ACTION_MAX_MESSAGES); nothing was changed.`,
  );

export const accountSlugTaken = (slug: string) =>
  new HttpError(409, 'ACCOUNT.SLUG_TAKEN', `An account with slug "${slug}" already exists in the organization.`);

export const userAlreadyExists = (id: number | undefined, organizationId: number | string) =>
  new HttpError(409, 'USER.ALREADY_EXISTS', `User ${id} already exists in organization ${organizationId}.`);
export const actionSpecificationNotFound = (id: string) =>
  notFound(`Action specification ${id} not found.`, 'ACTION_SPECIFICATION.NOT_FOUND');
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

export const grantNotPending = (id: number) => new HttpError(409, 'RESOURCE_GRANTS.NOT_PENDING', `Grant ${id} is already active.`);

/** One or more items of a bulk grant failed: `cause` is the first, `causes` all of them (by index). */
export const bulkGrantsFailed = (causes: Array<{ code: string; detail: string; index: number }>) =>
  new HttpError(400, 'RESOURCE_GRANTS.BULK_CREATE_FAILED', `The grants could not be created: ${causes[0].detail}`, {
    extra: { cause: causes[0], causes },
  });

export const invalidJsonSchema = (message: string, path: string) =>
  new HttpError(400, 'INVALID_JSON_SCHEMA', `${path} is not an acceptable JSON Schema: ${message}`);

/** A specification's write that breaks one of its rules (`code`: `SERVICE_SPECIFICATION.…`, `PROVIDER_SPECIFICATION.…`). */
export const specificationInvalid = (code: string, message: string, errors?: FieldError[]) =>
  new HttpError(400, code, message, errors ? { errors } : {});

export const specificationMovesOrganization = (code: string) =>
  new HttpError(400, code, 'visible_to cannot move a specification to another organization.');

export const slugUnavailable = (kind: 'SERVICE_SPECIFICATION' | 'PROVIDER_SPECIFICATION') =>
  new HttpError(409, `${kind}.SLUG_TAKEN`, 'Could not pick a free slug; retry.');

export const actionSpecificationSlugTaken = (slug: string) =>
  new HttpError(409, 'ACTION_SPECIFICATION.SLUG_TAKEN', `An action specification with slug "${slug}" exists.`);

export const specificationPackageBound = (bound: number) =>
  new HttpError(
    409,
    'SERVICE_SPECIFICATION.PACKAGE_BOUND',
    `package_id cannot change: ${bound} instance(s) are bound to a package revision.`,
  );

export const specificationInUse = (services?: number) =>
  new HttpError(
    409,
    'SERVICE_SPECIFICATION.IN_USE',
    services === undefined ? 'Services use this specification.' : `${services} service(s) use this specification.`,
  );

export const serviceInvalidDimensions = (message: string) => new HttpError(400, 'SERVICE.INVALID_DIMENSIONS', message);

export const serviceNameRequired = (specificationSlug: string) =>
  new HttpError(400, 'SERVICE.NAME_REQUIRED', `Specification ${specificationSlug} does not use default naming: give a name.`);

export const serviceInvalidNrn = () => new HttpError(400, 'SERVICE.INVALID_NRN', 'entity_nrn must name one entity (no *).');

export const serviceUnknownSpecification = (specificationId: string | number, entityNrn: string) =>
  new HttpError(400, 'SERVICE.UNKNOWN_SPECIFICATION', `Service specification ${specificationId} is not visible at ${entityNrn}.`);

/** Attributes or parameters that fail their specification's schema (`what`: the body field, `code`: its code). */
export const schemaMismatch = (code: string, what: string, against: string, errors: FieldError[]) =>
  new HttpError(400, code, `${what} do not match ${against}: /${what}${errors[0].path} ${errors[0].message}`, {
    errors: errors.map((e) => ({ ...e, path: `/${what}${e.path}` })),
  });

export const actionUnknownSpecification = (field: string, id: string | number) =>
  new HttpError(400, 'ACTION.UNKNOWN_SPECIFICATION', `${field} ${id} is not an action specification of this service's specification.`);
