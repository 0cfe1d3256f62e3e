/** Schemas shared by the administration routes. */
import { Type, type TSchema } from '@sinclair/typebox';
import { NRN_MAX_LENGTH, NRN_PATTERN } from '../../access/nrn';

export const NrnString = Type.String({
  pattern: NRN_PATTERN,
  maxLength: NRN_MAX_LENGTH,
  description: 'NRN, e.g. organization=1:account=2',
});
export const IntegerId = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });
/** The contract gives service specifications and actions `format: date` timestamps (YYYY-MM-DD). */
export const DateOnly = Type.String({ format: 'date' });

export const IdParams = Type.Object({ id: IntegerId });
export const UuidParams = Type.Object({ id: Uuid });

export const DEFAULT_PAGE_SIZE = 30;
export const MAX_PAGE_SIZE = 200;
/** Administration list paging (docs/security.md, "Paging maxima"): above either maximum the request answers 400. */
export const MAX_OFFSET = 1_000_000_000;
export const PagingQuery = {
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
};

export const Paged = <T extends TSchema>(item: T) =>
  Type.Object(
    {
      paging: Type.Object({ total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() }),
      results: Type.Array(item),
    },
    { additionalProperties: false },
  );

/** Documented error statuses of most administration routes (400/401 are implied by the declaration). */
export const ADMIN_ERRORS = [403, 404];
