/**
 * One registrar per trigger kind (an operator's trigger plugins: one each,
 * ./plugin-trigger-registrar.ts). Activation calls `register` for every
 * trigger of the revision and `unregister` to tear one down; registrars hold
 * no state (everything they need to undo is returned and stored in the
 * binding row), so any API replica can deactivate what another activated.
 */
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { EXECUTION_WORKFLOW_TYPE, type ScheduledStart, type TriggerDefinition } from '../../workflows/engine';
import { temporalScheduleSpec } from './cron-spec';
import { newWebhookToken } from './ids';

export interface RegistrationContext {
  organizationId: string;
  workflowId: string;
  aliasName: string;
  revision: number;
  trigger: TriggerDefinition;
  /** Unique per activation, so a new registration never collides with the one it replaces. */
  activationId: string;
  /**
   * The alias's live registration of the same trigger step (same id, same kind) when an active alias
   * moves to another revision (a publish moving `latest`, a PUT repointing it): a registrar may carry
   * it over (`carried: true`). Never set on an explicit activation, which rotates.
   */
  previous?: Registration;
}

export interface Registration {
  webhookToken?: string;
  scheduleId?: string;
  runtimeMetadata?: Record<string, unknown>;
  /** The previous registration, kept as it is: activation neither tears it down nor rolls it back. */
  carried?: boolean;
}

/** The binding a registration belongs to, for a registrar that needs more than what it returned to undo it. */
export interface BindingContext {
  organizationId: string;
  workflowId: string;
  aliasName: string;
  revision: number;
  triggerId: string;
}

export interface TriggerRegistrar {
  register(context: RegistrationContext): Promise<Registration>;
  unregister(registration: Registration, binding: BindingContext): Promise<void>;
  /** When a live registration next starts a run, as the executor says (kinds that schedule runs only). */
  nextRun?(registration: Registration): Promise<Date | undefined>;
}

export type TriggerRegistrars = Record<string, TriggerRegistrar>;

/** A registration failure with a machine-readable code, shown in the trigger's `lastError`. */
export class TriggerRegistrationError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'TriggerRegistrationError';
  }
}

export const manualRegistrar: TriggerRegistrar = {
  register: () => Promise.resolve({}),
  unregister: () => Promise.resolve(),
};

/**
 * The token is the capability; the URL is computed from PUBLIC_BASE_URL on every read. The URL
 * belongs to the alias: while it stays active, a move to another revision keeps the token of a
 * webhook step that is still there (same step id). Deactivation retires it; activating again mints
 * a new one (rotation).
 */
export const webhookRegistrar: TriggerRegistrar = {
  register: ({ previous }) =>
    Promise.resolve(previous?.webhookToken ? { webhookToken: previous.webhookToken, carried: true } : { webhookToken: newWebhookToken() }),
  unregister: () => Promise.resolve(),
};

/**
 * `catchUpMissed`: whether ticks missed while the schedule could not fire
 * (server down, paused) still run when it can again. `true` keeps a year's
 * window; `false` the shortest Temporal allows (10 s, so a tick that is only
 * late still runs). Absent: Temporal's default (a year).
 */
export function catchUpPolicy(catchUpMissed: unknown): { catchupWindow?: string } {
  if (catchUpMissed === true) return { catchupWindow: '365d' };
  if (catchUpMissed === false) return { catchupWindow: '10s' };
  return {};
}

export function cronRegistrar(client: Client, taskQueue: string): TriggerRegistrar {
  return {
    async register(context) {
      const schedule = context.trigger.config.schedule;
      const timezone = typeof context.trigger.config.timezone === 'string' ? context.trigger.config.timezone : 'UTC';
      const scheduleId = `${context.workflowId}.${context.aliasName}.${context.trigger.id}.${context.activationId}`;
      try {
        await client.schedule.create({
          scheduleId,
          // The dialect's reading in Temporal's own terms (cron-spec.ts), never the text handed over as it is.
          spec: temporalScheduleSpec(String(schedule), timezone),
          policies: { overlap: ScheduleOverlapPolicy.SKIP, ...catchUpPolicy(context.trigger.config.catchUpMissed) },
          action: {
            type: 'startWorkflow',
            workflowType: EXECUTION_WORKFLOW_TYPE,
            taskQueue,
            workflowId: `cron-${scheduleId}`,
            args: [
              {
                organizationId: context.organizationId,
                workflowId: context.workflowId,
                alias: context.aliasName,
                revision: context.revision,
                trigger: { id: context.trigger.id, pluginType: 'cron', schedule },
              } satisfies ScheduledStart,
            ],
          },
          memo: {
            organizationId: context.organizationId,
            workflowId: context.workflowId,
            alias: context.aliasName,
            triggerId: context.trigger.id,
          },
        });
      } catch (error) {
        const cause = (error as { cause?: { details?: unknown; message?: unknown } }).cause;
        const detail =
          typeof cause?.details === 'string'
            ? cause.details
            : typeof cause?.message === 'string'
              ? cause.message
              : (error as Error).message;
        throw new TriggerRegistrationError('CRON_SCHEDULE_CREATE_FAILED', `Temporal refused the schedule: ${detail}`);
      }
      return { scheduleId, runtimeMetadata: { scheduleId, schedule, timezone } };
    },
    async unregister(registration) {
      if (!registration.scheduleId) return;
      try {
        await client.schedule.getHandle(registration.scheduleId).delete();
      } catch (error) {
        if (!(error instanceof ScheduleNotFoundError)) throw error;
      }
    },
    // Temporal's own answer (the spec it was given, its time zone and pauses).
    async nextRun(registration) {
      if (!registration.scheduleId) return undefined;
      const description = await client.schedule.getHandle(registration.scheduleId).describe();
      return description.info.nextActionTimes[0];
    },
  };
}

/**
 * `on-error` and `execution-failed-trigger` need nothing registered: their live
 * binding row is the registration, found by any process that sees a failure
 * (executions/dispatch-failure.ts).
 */
export const recoveryRegistrar: TriggerRegistrar = {
  register: () => Promise.resolve({}),
  unregister: () => Promise.resolve(),
};

export function defaultRegistrars(client: Client, taskQueue: string): TriggerRegistrars {
  return {
    manual: manualRegistrar,
    webhook: webhookRegistrar,
    cron: cronRegistrar(client, taskQueue),
    'on-error': recoveryRegistrar,
    'execution-failed-trigger': recoveryRegistrar,
  };
}
