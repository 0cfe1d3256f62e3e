/** The output ports a step can wire, given its plugin and config. */
import type { PluginDescriptor } from './descriptor';

/** Output ports a step can wire, given its plugin and config (deciders rename or add ports). */
export function outputPortsOf(plugin: PluginDescriptor, config: Record<string, unknown>): string[] {
  const ports = new Set(['default', ...plugin.outputPorts]);
  if (plugin.name === 'conditional') {
    if (typeof config.truePort === 'string') ports.add(config.truePort);
    if (typeof config.falsePort === 'string') ports.add(config.falsePort);
  }
  if (plugin.name === 'case') {
    if (Array.isArray(config.cases)) {
      for (const c of config.cases as unknown[]) {
        const port = c !== null && typeof c === 'object' ? (c as Record<string, unknown>).port : undefined;
        if (typeof port === 'string') ports.add(port);
      }
    }
    if (typeof config.default === 'string') ports.add(config.default);
  }
  return [...ports];
}
