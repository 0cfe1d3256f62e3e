/** The audit area's errors (the administration dialect: `{statusCode, error, message, code}`). */
import { notFound, validationFailed } from '../http/errors';

export const organizationNotFound = (id: string) => () => notFound(`Organization ${id} not found.`, 'ORGANIZATION.NOT_FOUND');
export const cursorInvalid = () => validationFailed([{ path: '/query/cursor', message: 'must be a nextCursor this endpoint returned' }]);
