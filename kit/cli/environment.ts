/**
 * The command line's one reader of the environment (the service reads its own
 * through config/config.ts): the server, the token, and whether to colour.
 */
export interface CliEnvironment {
  url?: string;
  token?: string;
  noColor: boolean;
}

export function cliEnvironment(env: NodeJS.ProcessEnv = process.env): CliEnvironment {
  return {
    url: env.PLATFORM_API_URL || undefined,
    token: env.PLATFORM_API_TOKEN || undefined,
    noColor: env.NO_COLOR !== undefined && env.NO_COLOR !== '',
  };
}
