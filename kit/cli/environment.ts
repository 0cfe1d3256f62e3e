/**
 * The command line's one reader of the environment (the service reads its own
 * through config/config.ts): the server, the token or API key, whether to colour, and the
 * egress settings a local run honours as the worker does (./egress.ts).
 */
export interface CliEnvironment {
  url?: string;
  token?: string;
  /** An API key (`PLATFORM_API_KEY`), exchanged at POST /token when no token is given: a CI job needs this one secret. */
  apiKey?: string;
  noColor: boolean;
  egressAllowCidrs?: string;
  egressAllowHosts?: string;
  egressDenyHosts?: string;
}

export function cliEnvironment(env: NodeJS.ProcessEnv = process.env): CliEnvironment {
  return {
    url: env.PLATFORM_API_URL || undefined,
    token: env.PLATFORM_API_TOKEN || undefined,
    apiKey: env.PLATFORM_API_KEY || undefined,
    noColor: env.NO_COLOR !== undefined && env.NO_COLOR !== '',
    egressAllowCidrs: env.EGRESS_ALLOW_CIDRS || undefined,
    egressAllowHosts: env.EGRESS_ALLOW_HOSTS || undefined,
    egressDenyHosts: env.EGRESS_DENY_HOSTS || undefined,
  };
}
