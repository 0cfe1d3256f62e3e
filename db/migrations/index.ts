/**
 * Every migration, in order. Listed explicitly (not globbed) so the same list
 * works from TypeScript sources and compiled output.
 */
import type { MigrationInterface } from 'typeorm';

export const MIGRATIONS: Array<new () => MigrationInterface> = [];
