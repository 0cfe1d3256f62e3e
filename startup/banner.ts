/**
 * What `npm start` prints once it serves: plain text in a frame, whatever the log format, so
 * that a newcomer finds the addresses without reading log lines. A stand-in Temporal gets a
 * frame of its own above it: executions then do not survive a restart, and there is no Web UI.
 */
import path from 'node:path';
import type { TemporalKind } from './temporal';

export interface BannerFacts {
  apiUrl: string;
  /** The one-time console sign-in link, when this process prints one. */
  consoleLink?: { url: string; validMinutes: number; userId: string; organizationId: string };
  temporal: { kind: TemporalKind; address: string; uiUrl?: string; version?: string; logFile?: string; standInReason?: string };
  dataDir: string;
  /** True when PostgreSQL runs embedded under `dataDir`. */
  embeddedDatabase: boolean;
}

/** The banner's lines, frames included (no trailing newline). */
export function startBanner(facts: BannerFacts): string {
  const rows: Array<[string, string]> = [
    ['API', facts.apiUrl],
    ['Console', facts.consoleLink ? facts.consoleLink.url : `${facts.apiUrl}/console/ (sign in with a token)`],
  ];
  if (facts.consoleLink) {
    const { validMinutes, userId, organizationId } = facts.consoleLink;
    rows.push(['', `one-time sign-in link for user ${userId} of organization ${organizationId}, valid ${validMinutes} minutes`]);
  }
  rows.push(['Temporal Web UI', facts.temporal.uiUrl ?? 'none (see Temporal below)']);
  rows.push(['Temporal', temporalLine(facts.temporal)]);
  if (facts.temporal.logFile) rows.push(['', `its log: ${relative(facts.temporal.logFile)}`]);
  rows.push(['Data', `${relative(facts.dataDir)}${facts.embeddedDatabase ? ' (embedded PostgreSQL, Temporal state, dev keys)' : ''}`]);
  rows.push([
    'Token',
    `npm run --silent token -- --user ${facts.consoleLink?.userId ?? 1} --org ${facts.consoleLink?.organizationId ?? 1}`,
  ]);
  rows.push(['Stop', 'Ctrl-C (or SIGTERM to npm)']);
  const width = Math.max(...rows.map(([label]) => label.length));
  const main = frame(['Platform API is running', '', ...rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`)]);
  if (facts.temporal.kind !== 'stand-in') return main;
  const warning = [
    'WARNING: Temporal is the in-memory STAND-IN, not the real server.',
    'Executions do not survive a restart, and there is no Temporal Web UI.',
    `Why: ${facts.temporal.standInReason ?? 'no Temporal CLI was found, downloaded or built'}.`,
    'Fix: install Go 1.24+ and restart (npm start then builds the CLI, once), or install the',
    'Temporal CLI (https://docs.temporal.io/cli) and set TEMPORAL_CLI_PATH, or set TEMPORAL_ADDRESS.',
  ];
  return `${frame(warning, '!')}\n${main}`;
}

function temporalLine(temporal: BannerFacts['temporal']): string {
  if (temporal.kind === 'configured') return `${temporal.address} (TEMPORAL_ADDRESS)`;
  if (temporal.kind === 'stand-in') return `in-memory stand-in on ${temporal.address} (see the warning above)`;
  return `real dev server on ${temporal.address}${temporal.version ? `, ${temporal.version}` : ''}`;
}

/** A path under the working directory is shown relative to it (shorter, and what the README names). */
function relative(file: string): string {
  const inside = path.relative(process.cwd(), file);
  return inside && !inside.startsWith('..') && !path.isAbsolute(inside) ? inside : file;
}

function frame(lines: string[], edge = '─'): string {
  const width = Math.max(...lines.map((line) => line.length));
  if (edge !== '─') {
    const rule = edge.repeat(width + 4);
    return [rule, ...lines.map((line) => `${edge} ${line.padEnd(width)} ${edge}`), rule].join('\n');
  }
  return [`┌${'─'.repeat(width + 2)}┐`, ...lines.map((line) => `│ ${line.padEnd(width)} │`), `└${'─'.repeat(width + 2)}┘`].join('\n');
}
