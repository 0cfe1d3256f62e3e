/** The worker's execution activities on a test database, as a test below the workflow calls them. */
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createExecutionActivities } from '../../activities/create-execution-activities';
import { workflowReach } from '../../api/access/workflow-reach';
import { DEFAULT_LIMITS } from '../../config/limits';
import { TEST_EGRESS } from './egress';
import { captureLogger } from './logger';

export function activitiesOn(dataSource: DataSource) {
  return createExecutionActivities({
    dataSource,
    logger: captureLogger('info').logger,
    encryptionKey: randomBytes(32),
    temporalNamespace: 'default',
    egress: TEST_EGRESS,
    limits: DEFAULT_LIMITS,
    reach: workflowReach,
  });
}
