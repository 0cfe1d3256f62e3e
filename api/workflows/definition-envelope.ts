/**
 * A definition body wrapped in a `{definition: …}` envelope, as one of the
 * compatible engine's quickstarts writes it (its reference and scripts send
 * the definition bare, as this API takes it). A definition has no top-level
 * `definition` field, so such a body is refused with what to send instead,
 * rather than read as a definition that lacks its name and steps.
 */
import { definitionEnvelope } from './errors';

export function refuseEnvelope(body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body) || !Object.hasOwn(body, 'definition')) return;
  const inner = (body as { definition: unknown }).definition;
  if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return;
  throw definitionEnvelope();
}
