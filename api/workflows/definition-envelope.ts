/**
 * A definition body wrapped in a `{definition: …}` envelope, as one of the
 * compatible engine's quickstarts writes it (its reference and scripts send
 * the definition bare, as this API takes it). A definition has no top-level
 * `definition` field, so such a body is refused with what to send instead,
 * rather than read as a definition that lacks its name and steps.
 */
import { HttpError } from '../http/errors';

export function refuseEnvelope(body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !Object.hasOwn(body, 'definition')) return;
  const inner = (body as { definition: unknown }).definition;
  if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return;
  throw new HttpError(
    400,
    'definition-envelope',
    'The body is wrapped in a {"definition": …} envelope: send the definition itself as the body, ' +
      'with its name, steps and connections at the top level (a definition has no "definition" field).',
    { errors: [{ path: '/definition', message: 'send this object as the body, without the envelope' }] },
  );
}
