/**
 * `GET /workflows/triggers?includeNextRun=true` reads Temporal once per live schedule: at most
 * NEXT_RUN_READS_MAX per request, so one list of thousands of schedules cannot send thousands of reads.
 */
import assert from 'node:assert/strict';
import type { TriggerBindingEntity } from '../../db/entities/trigger-binding';
import { NEXT_RUN_READS_MAX, nextRunsOf } from '../../api/workflows/trigger-routes';
import type { WorkflowDeps } from '../../api/workflows/deps';

describe('next runs of schedules (includeNextRun)', () => {
  it(`reads at most ${NEXT_RUN_READS_MAX} schedules per request, live ones only; a failed read leaves its binding out`, async () => {
    let reads = 0;
    const deps = {
      registrars: {
        cron: {
          nextRun: ({ scheduleId }: { scheduleId?: string }): Promise<Date> => {
            reads++;
            if (scheduleId === 's3') return Promise.reject(new Error('schedule gone'));
            return Promise.resolve(new Date(Date.UTC(2030, 0, 1)));
          },
        },
      },
    } as unknown as WorkflowDeps;
    const rows = Array.from(
      { length: NEXT_RUN_READS_MAX + 50 },
      (_, i) => ({ status: i === 1 ? 'inactive' : 'live', pluginType: 'cron', scheduleId: `s${i}` }) as unknown as TriggerBindingEntity,
    );
    const found = await nextRunsOf(deps, rows);
    assert.equal(reads, NEXT_RUN_READS_MAX);
    // The inactive binding is not read, the failed one is left out.
    assert.equal(found.size, NEXT_RUN_READS_MAX - 1);
    assert.equal(found.has(rows[1]), false);
    assert.equal(found.has(rows[3]), false);
    assert.equal(found.has(rows[NEXT_RUN_READS_MAX + 40]), false);
  });
});
