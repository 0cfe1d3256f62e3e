/**
 * The errors of /workflows/config, in its `{error, message}` dialect: snake_case codes, one per
 * rule a body can break (docs/api.md, "Secrets and variables").
 */
import { HttpError } from '../http/errors';

export const configEntryNotFound = (id: string): HttpError => new HttpError(404, 'not_found', `No config entry "${id}".`);

/** Without any grant in the organization, its places answer like a missing one. */
export const placeNotFound = (): HttpError => new HttpError(404, 'not_found', 'No such place exists in your organization.');

export const placeWorkflowNotFound = (ref: string): HttpError =>
  new HttpError(404, 'not_found', `No workflow "${ref}" exists in your organization.`);

export const invalidName = (message: string): HttpError => new HttpError(400, 'invalid_name', message);

export const invalidValue = (message: string): HttpError => new HttpError(400, 'invalid_value', message);

export const invalidPlace = (message: string): HttpError => new HttpError(400, 'invalid_place', message);

export const invalidNrn = (message: string): HttpError => new HttpError(400, 'invalid_nrn', message);

export const nrnImmutable = (message: string): HttpError => new HttpError(409, 'nrn_immutable', message);

export const secretFlagImmutable = (message: string): HttpError => new HttpError(409, 'secret_flag_immutable', message);
