/** Shorthands for the property schemas plugin descriptors declare. */
import type { PropertySchema } from '../config-schema';

export const str = (description?: string, extra: Partial<PropertySchema> = {}): PropertySchema => ({
  type: 'string',
  description,
  ...extra,
});
export const bool = (description?: string): PropertySchema => ({ type: 'boolean', description });
export const int = (description?: string, minimum?: number): PropertySchema => ({ type: 'integer', description, minimum });
export const duration = (description?: string): PropertySchema => ({ type: ['string', 'number'], format: 'duration', description });
export const obj = (description?: string): PropertySchema => ({ type: 'object', description });
export const onTimeout: PropertySchema = { type: 'string', enum: ['error', 'continue'] };
