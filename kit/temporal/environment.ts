/**
 * `executor: 'temporal'`'s one reader of the environment (the service reads its own through
 * config/config.ts, whose other settings a test process need not have): where the Temporal is.
 */
export interface TemporalEnvironment {
  /** TEMPORAL_TESTING_ADDRESS (the compatible engine's harness reads it), else TEMPORAL_ADDRESS. */
  address?: string;
  namespace?: string;
  cliPath?: string;
  /** TEMPORAL_SERVER=stand-in: this repository's in-memory stand-in (its test lane). */
  standIn: boolean;
}

export function temporalEnvironment(env: NodeJS.ProcessEnv = process.env): TemporalEnvironment {
  return {
    address: env.TEMPORAL_TESTING_ADDRESS || env.TEMPORAL_ADDRESS || undefined,
    namespace: env.TEMPORAL_NAMESPACE || undefined,
    cliPath: env.TEMPORAL_CLI_PATH || undefined,
    standIn: env.TEMPORAL_SERVER?.toLowerCase() === 'stand-in',
  };
}
