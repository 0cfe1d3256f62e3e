/**
 * Plugin config values accepted by the compatible engine that this one cannot
 * honour, refused at publish with the path and the reason (rather than at run
 * time, or not at all):
 * - `code-exec` `libraries` (non-empty): the sandbox installs no packages;
 * - `code-exec` `language: ts` with a template in its `code`: the activity
 *   strips the types before the code runs, so a template could not be placed
 *   where the script reads it (the values are declared in `inputs:` instead);
 * - `http-request` `verifySsl: false`: certificates are always verified;
 * - `set-variable` with both `path` and `name` (its older spelling), or a
 *   `name` with a dot (one engine could read it as a nested path, the other
 *   as one variable's name: write `path` for a nested one).
 * A template is not refused: its value is known only at run time, where the
 * plugin refuses it the same way.
 */
import type { DefinitionIssue } from './definition';
import { join } from './pointer';
import { SCRIPT_TEMPLATE_IDIOM } from './script-templates';
import { isPlainName, PLAIN_NAME_RULE } from './inline/set-variable';

export function refuseUnsupportedConfig(
  plugin: string,
  config: Record<string, unknown>,
  configPath: string,
  issues: DefinitionIssue[],
): void {
  if (plugin === 'set-variable') return refuseSetVariable(config, configPath, issues);
  if (plugin !== 'code-exec' && plugin !== 'http-request') return;
  const refuse = (key: string, message: string) => issues.push({ path: join(configPath, key), message });
  if (plugin === 'code-exec') {
    if (Array.isArray(config.libraries) && config.libraries.length > 0)
      refuse(
        'libraries',
        'code-exec libraries are not supported: the sandbox installs no packages (it has no network to fetch them); put the code you need in "code"',
      );
    if (writtenInTypeScript(plugin, config) && typeof config.code === 'string' && config.code.includes('${{'))
      refuse('code', `a code-exec script in TypeScript cannot hold templates: ${SCRIPT_TEMPLATE_IDIOM} (or write it in JavaScript)`);
  }
  if (plugin === 'http-request' && config.verifySsl === false)
    refuse('verifySsl', 'verifySsl: false is not supported: certificates are always verified');
}

/** A `code-exec` script in TypeScript: its templates are refused above rather than planned as JavaScript's. */
export function writtenInTypeScript(plugin: string, config: Record<string, unknown>): boolean {
  return plugin === 'code-exec' && (config.language === 'ts' || config.language === 'typescript');
}

function refuseSetVariable(config: Record<string, unknown>, configPath: string, issues: DefinitionIssue[]): void {
  if (config.path !== undefined && config.name !== undefined)
    issues.push({ path: join(configPath, 'name'), message: 'set-variable takes path or name (its older spelling), not both: keep one' });
  else if (typeof config.name === 'string' && !config.name.includes('${{') && !isPlainName(config.name))
    issues.push({ path: join(configPath, 'name'), message: PLAIN_NAME_RULE });
}
