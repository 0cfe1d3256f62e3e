/**
 * Administration speed targets, through HTTP against embedded PostgreSQL:
 * - a page of 30 accounts out of 100,000: p50 < 5 ms (first page), < 20 ms (last page);
 * - a bulk grant of 100 items: p50 < 50 ms.
 * The app listens on a loopback port and is called with keep-alive fetch, so
 * figures include routing, token verification, authorization and the queries.
 */
import type { AddressInfo } from 'node:net';
import { adminRoutes } from '../api/admin';
import { bootstrapAdmins } from '../api/admin/bootstrap';
import { createTestApp } from '../test/support/app';
import { closeTestDataSource, testDataSource } from '../test/support/database';
import { captureLogger } from '../test/support/logger';
import { percentile, round, type BenchReport } from './report';
import { FULL_SIZE, sized, type BenchOptions } from './size';

const ORG = 990_001;
const ADMIN = 990_000_001;

async function timed(samples: number, warmup: number, call: (i: number) => Promise<void>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples + warmup; i += 1) {
    const started = process.hrtime.bigint();
    await call(i);
    if (i >= warmup) out.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return out;
}

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const accounts = sized(options, 100_000, 1_000);
  const samples = sized(options, 200, 5);
  const db = await testDataSource();
  try {
    const t = createTestApp({ routes: adminRoutes({ dataSource: db }) });
    await bootstrapAdmins(db, [{ userId: ADMIN, organizationId: ORG }], captureLogger().logger, { defaultFirstAdmin: false });
    await db.query(`DELETE FROM accounts WHERE organization_id = $1`, [ORG]);
    await db.query(
      `INSERT INTO accounts (organization_id, name, slug, status) SELECT $1, 'Account ' || n, 'account-' || n, 'active' FROM generate_series(1, $2) n`,
      [ORG, accounts],
    );
    // Production tables get this from autovacuum; a freshly loaded one needs it for index-only scans.
    await db.query(`VACUUM ANALYZE accounts`);

    const server = t.app.koa.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const headers = {
      authorization: `Bearer ${await t.token({ userId: String(ADMIN), organizationId: String(ORG) })}`,
      'content-type': 'application/json',
    };
    const call = async (method: string, path: string, body?: unknown, expected = 200) => {
      const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
      return text;
    };
    try {
      const first = await timed(samples, 20, () => call('GET', `/account?organization_id=${ORG}`).then(() => undefined));
      const lastOffset = accounts - 30;
      const lastText = await call('GET', `/account?organization_id=${ORG}&offset=${lastOffset}`);
      const lastPage = JSON.parse(lastText) as { paging: { total: number }; results: unknown[] };
      if (lastPage.paging.total !== accounts || lastPage.results.length !== 30) throw new Error('unexpected last page');
      const last = await timed(samples, 20, () =>
        call('GET', `/account?organization_id=${ORG}&offset=${lastOffset}`).then(() => undefined),
      );

      const middle = await timed(samples, 10, () =>
        call('GET', `/account?organization_id=${ORG}&offset=${accounts / 2 - 30}`).then(() => undefined),
      );

      const users: number[] = [];
      for (let i = 0; i < 120; i += 1) {
        const id = ADMIN + 1 + i;
        await db.query(
          `INSERT INTO users (id, organization_id, type) VALUES ($1, $2, 'person') ON CONFLICT (organization_id, id) DO NOTHING`,
          [id, ORG],
        );
        await db.query(`DELETE FROM grants WHERE user_id = $1`, [id]);
        users.push(id);
      }
      const items = Array.from({ length: 100 }, (_, i) => ({
        nrn: `organization=${ORG}:account=${i + 1}`,
        ...(i % 2 ? { role_slug: 'viewer' } : { role_id: 2 }),
      }));
      const grants = await timed(samples, 20, (i) => call('POST', `/user/${users[i]}/grant`, items, 201).then(() => undefined));

      const figures = {
        'accounts first page p50 ms': round(percentile(first, 50)),
        'accounts first page p95 ms': round(percentile(first, 95)),
        'accounts last page p50 ms': round(percentile(last, 50)),
        'accounts last page p95 ms': round(percentile(last, 95)),
        'accounts middle page (worst case) p50 ms': round(percentile(middle, 50)),
        'bulk grant 100 items p50 ms': round(percentile(grants, 50)),
        'bulk grant 100 items p95 ms': round(percentile(grants, 95)),
      };
      return {
        name: `administration (${accounts.toLocaleString('en')} accounts, 100-item bulk grants, HTTP)`,
        figures,
        targets: [
          { label: 'first page of 30 accounts p50 < 5 ms', met: percentile(first, 50) < 5 },
          { label: 'last page of 30 accounts p50 < 20 ms', met: percentile(last, 50) < 20 },
          { label: 'bulk grant of 100 items p50 < 50 ms', met: percentile(grants, 50) < 50 },
        ],
      };
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  } finally {
    await closeTestDataSource();
  }
}
