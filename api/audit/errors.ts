/** The audit area's errors (the administration dialect: `{statusCode, error, message, code}`). */
import { notFound, validationFailed, type HttpError } from '../http/errors';

export const organizationNotFound = (id: string): HttpError => notFound(`Organization ${id} not found.`, 'ORGANIZATION.NOT_FOUND');
export const cursorInvalid = (): HttpError =>
  validationFailed([{ path: '/query/cursor', message: 'must be a nextCursor this endpoint returned' }]);
