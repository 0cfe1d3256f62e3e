/**
 * One way to run SQL (docs/architecture.md, "Data access"): statements live in db/repositories
 * (and db/migrations), statements built from parts number their parameters with the builder
 * (db/sql-builder.ts), and only the statements listed in db/hot-statements.ts go straight to the
 * pool. These checks read the sources, so a second way fails here before review.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { HOT_STATEMENTS } from '../../db/hot-statements';

const ROOT = path.resolve(__dirname, '../..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir))) {
    const relative = path.join(dir, entry);
    if (statSync(path.join(ROOT, relative)).isDirectory()) out.push(...sources(relative));
    else if (entry.endsWith('.ts')) out.push(relative);
  }
  return out;
}

function offending(files: string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    readFileSync(path.join(ROOT, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('one way to run SQL', () => {
  it('runs no SQL outside db/: the product code calls repository methods', () => {
    const product = ['api', 'executions', 'startup', 'activities', 'worker', 'workflows', 'kit', 'config'].flatMap(sources);
    // Temporal's own database (its schema's state, for the bundled server) is not the service's data.
    const notOurData = new Set(['startup/cluster/temporal-server.ts']);
    const found = offending(
      product.filter((file) => !notOurData.has(file)),
      /\b(rowsOf|poolQuery|createQueryBuilder|createQueryRunner)\b|\.query\(\s*[`'"]|\bmanager\.query\b/,
    );
    assert.deepEqual(found, []);
  });

  it('numbers no parameter by hand in a statement built from parts', () => {
    const repositories = sources('db/repositories');
    // `$${…}`: a number counted by hand; `?` replaced by a regex; a bare manager.query beside rowsOf.
    assert.deepEqual(offending(repositories, /\$\$\{|replace\(\/\\\?\/g|this\.manager\.query\(/), []);
  });

  it('uses the query builder only for the writes that answer with the row (returning.ts)', () => {
    const found = offending(sources('db/repositories'), /createQueryBuilder/).filter(
      (line) => !line.startsWith('db/repositories/returning.ts'),
    );
    assert.deepEqual(found, []);
  });

  it('lists every statement that goes straight to the pool, and lists none that is not used', () => {
    const repositories = sources('db/repositories').map((file) => readFileSync(path.join(ROOT, file), 'utf8'));
    const unused = Object.keys(HOT_STATEMENTS).filter((name) => !repositories.some((text) => text.includes(`'${name}'`)));
    assert.deepEqual(unused, []);
    for (const [name, saves] of Object.entries(HOT_STATEMENTS)) assert.ok(saves.length > 20, `${name} says what it saves`);
  });
});
