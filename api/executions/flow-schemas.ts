/** Response schemas of flow control (executions/flow/; docs/definitions.md, "Flow control"). */
import { Type } from '@sinclair/typebox';

const DateTime = Type.String({ format: 'date-time' });

/** What flow control holds of a run, on GET of an execution. */
export const FlowControlState = Type.Object(
  {
    kind: Type.Union([Type.Literal('concurrency'), Type.Literal('throttle'), Type.Literal('debounce')]),
    key: Type.String({ description: "the rendered key ('' when the definition names none: one key for the workflow)" }),
    position: Type.Optional(Type.Integer({ description: "while queued: its place in its key's queue (1: next)" })),
    notBefore: Type.Optional(DateTime),
    admittedAt: Type.Optional(DateTime),
  },
  { description: 'Present on runs of a workflow with concurrency, throttle or debounce.' },
);

/** A start folded into its debounce key's queued run (answered with that run's id). */
export const Debounced = Type.Literal(true, { description: "folded into its debounce key's queued run, which executionId names" });
