/**
 * Shared entry logic of the start scripts: load configuration (a bad value
 * stops the process with a message naming the variable), start the parts,
 * stop on signals.
 */
import { ConfigError, loadConfig, type AppConfig } from '../config/config';
import { createProcessLogger } from '../config/logger';
import type { ServiceParts } from '../startup/service-parts';

export function loadConfigOrExit(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
}

export function runService(parts: ServiceParts): void {
  const config = loadConfigOrExit();
  const logger = createProcessLogger(config);
  const starting = new AbortController();
  // Loaded after the configuration is known to be valid, so a bad variable is reported at once.
  import('../startup/service.js')
    .then(async (service: typeof import('../startup/service.js')) => {
      const running = service.startService(config, logger, parts, starting.signal);
      // Listening from the start: a signal during a long start (a Temporal CLI build) stops it too.
      service.stopOnSignals(running, logger, starting);
      await running;
    })
    .catch((error: unknown) => {
      if (starting.signal.aborted) return; // asked to stop while starting: stopOnSignals ends the process
      if (error instanceof Error && error.name === 'PluginLoadError') {
        // An operator's mistake, like a bad variable: one plain line naming the plugin (the class is not imported
        // here, so a bad variable is still reported before the service's modules load).
        console.error(`Invalid plugin: ${error.message}`);
        process.exit(2);
      }
      logger.fatal({ err: error }, 'start-up failed');
      process.exit(1);
    });
}
