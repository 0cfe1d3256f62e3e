/**
 * A script's templates (code-exec `code`) must each stand where the script
 * reads a value, inside a string or template literal, or in a comment: there
 * the sandbox binds its value (./script-templates.ts). Anywhere else the
 * compatible engine would paste data into code, so the definition is refused
 * at publish, with the place and what to write instead.
 */
import type { DefinitionIssue } from './definition';
import { templateSources } from './expressions';
import { planScript } from './script-templates';

export function checkScript(code: string, path: string, issues: DefinitionIssue[]): void {
  // An unclosed "${{" is reported by the template check of every config string.
  if (!code.includes('${{') || templateSources(code).error) return;
  const { error } = planScript(code);
  if (error) issues.push({ path, message: error });
}
