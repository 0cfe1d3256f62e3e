/** Shorthands for the property schemas plugin descriptors declare. */
import type { PropertySchema } from '../config-schema';
import { ANSWER_CONFIG } from '../inline/declared-answer';

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

/**
 * The config a two-phase wait's step also takes, read by the engine as `signal-wait` reads it (an operator's
 * plugin with `twoPhaseWait` gets these added to its config schema, and may not declare them itself).
 */
export const TWO_PHASE_WAIT_SETTINGS: Readonly<Record<string, PropertySchema>> = Object.freeze({
  timeout: duration('how long to wait for the signal after the side effect (absent: no limit)'),
  onTimeout: { ...onTimeout, description: 'error (default): fail with SIGNAL_WAIT_TIMEOUT; continue: leave through timeout, else default' },
  defaultValue: { type: 'any', description: 'what stands for the payload after a timeout with onTimeout: continue' },
  answer: {
    type: 'object',
    description:
      'who may answer the wait and what, as a signal-wait declares it in its config (form, title, description, approvers, excludeStarter, required, notify)',
    properties: ANSWER_CONFIG,
  },
});
