/** The egress policy of tests: the defaults, with loopback 127.0.0.1 opened explicitly for their local HTTP servers. */
import { DEFAULT_EGRESS, type EgressPolicy } from '../../activities/egress/policy';

export const TEST_EGRESS: EgressPolicy = { ...DEFAULT_EGRESS, allowCidrs: ['127.0.0.1'] };
