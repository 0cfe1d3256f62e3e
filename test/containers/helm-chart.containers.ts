/**
 * The Helm chart (deploy/helm/platform-api): `helm lint` passes, `helm template` renders, and its
 * pod specs say what docker-compose.yml says and the compose test ran under faults: the same
 * commands per role, the same health endpoints, the image's non-root user, the same grace periods,
 * migrations by the job only and before the pods. Helm comes from scripts/install-helm (built from
 * its Go module); without Go the checks are skipped, and say so.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';
import { ROOT } from '../support/process';
import { ComposeProject, podman } from './compose';

const exec = promisify(execFile);
const CHART = path.join(ROOT, 'deploy/helm/platform-api');
const SECRETS = [
  '--set',
  'secrets.authJwtSecret=0123456789abcdef0123456789abcdef',
  '--set',
  'secrets.configEncryptionKey=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  '--set',
  'secrets.databaseUrl=postgres://platform:platform@postgres:5432/platform',
];

interface Container {
  name: string;
  command: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: unknown }>;
  ports?: Array<{ name: string; containerPort: number }>;
  readinessProbe?: { httpGet: { path: string; port: string } };
  livenessProbe?: { httpGet: { path: string; port: string } };
  securityContext: Record<string, unknown>;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
}
interface Manifest {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  spec: {
    replicas?: number;
    template: { spec: { containers: Container[]; securityContext: Record<string, unknown>; terminationGracePeriodSeconds?: number } };
  };
}

describe('the Helm chart', function () {
  this.timeout(20 * 60_000);
  let helm: string;
  let manifests: Manifest[];
  const compose = new ComposeProject({ file: path.join(ROOT, 'docker-compose.yml'), project: 'chart-check', env: {}, lenient: true });
  const find = (kind: string, suffix: string) => {
    const found = manifests.find((m) => m.kind === kind && m.metadata.name.endsWith(suffix));
    assert.ok(found, `a ${kind} named *${suffix}`);
    return found;
  };
  const container = (kind: string, suffix: string) => find(kind, suffix).spec.template.spec.containers[0];
  const envOf = (c: Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));

  before(async function () {
    try {
      helm = (await exec(path.join(ROOT, 'scripts/install-helm'), [], { timeout: 15 * 60_000 })).stdout.trim().split('\n').pop()!;
    } catch (error) {
      console.log(`  Helm could not be built here (${(error as Error).message.split('\n')[0]}): the chart's checks are skipped`);
      this.skip();
    }
    const { stdout } = await exec(helm, ['template', 'platform', CHART, ...SECRETS], { maxBuffer: 16 * 1024 * 1024 });
    manifests = YAML.parseAllDocuments(stdout)
      .map((doc) => doc.toJSON() as Manifest | null)
      .filter((m): m is Manifest => m !== null);
  });

  it('passes helm lint', async () => {
    const { stdout } = await exec(helm, ['lint', '--strict', CHART, ...SECRETS]);
    assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  });

  it('refuses to render without the secrets or an existing Secret', async () => {
    await assert.rejects(exec(helm, ['template', 'platform', CHART]), /secrets\.authJwtSecret/);
    const { stdout } = await exec(helm, ['template', 'platform', CHART, '--set', 'existingSecret=platform-secrets']);
    assert.ok(!/kind: Secret/.test(stdout), 'no Secret of its own with existingSecret');
    assert.match(stdout, /name: platform-secrets/);
  });

  it('runs each role with the command, health checks and grace periods the compose shape ran', () => {
    const services = compose.services;
    const api = container('Deployment', '-api');
    const worker = container('Deployment', '-worker');
    const migrate = container('Job', '-migrate');
    assert.deepEqual(api.command, services.api.command);
    assert.deepEqual(worker.command, services.worker.command);
    assert.deepEqual(migrate.command, services.migrate.command);

    // Readiness is the compose health check's URL (/ready), liveness of a worker its metrics port.
    const composeApiCheck = services.api.healthcheck!.test.join(' ');
    assert.ok(composeApiCheck.includes(`127.0.0.1:8080${api.readinessProbe!.httpGet.path}'`), composeApiCheck);
    const metricsPort = String(services.worker.environment!.WORKER_METRICS_PORT);
    assert.equal(envOf(worker).WORKER_METRICS_PORT, metricsPort);
    assert.equal(String(worker.ports!.find((p) => p.name === 'metrics')!.containerPort), metricsPort);
    assert.ok(services.worker.healthcheck!.test.join(' ').includes(`127.0.0.1:${metricsPort}${worker.livenessProbe!.httpGet.path}'`));

    // Only the job migrates, before the pods (hook weights), as compose's migrate service runs first.
    assert.equal(envOf(api).MIGRATE_ON_START, 'false');
    assert.equal(envOf(worker).MIGRATE_ON_START, 'false');
    assert.equal(String(services.api.environment!.MIGRATE_ON_START), 'false');
    const job = find('Job', '-migrate');
    assert.match(job.metadata.annotations!['helm.sh/hook'], /pre-install/);
    for (const kind of ['ConfigMap', 'Secret']) {
      const made = manifests.find((m) => m.kind === kind)!;
      assert.ok(Number(made.metadata.annotations!['helm.sh/hook-weight']) < Number(job.metadata.annotations!['helm.sh/hook-weight']));
    }

    // Grace: SHUTDOWN_GRACE_MS as compose's, the pod's period compose's stop_grace_period.
    assert.equal(envOf(worker).SHUTDOWN_GRACE_MS, String(services.worker.environment!.SHUTDOWN_GRACE_MS));
    assert.equal(`${find('Deployment', '-worker').spec.template.spec.terminationGracePeriodSeconds}s`, services.worker.stop_grace_period);
    assert.equal(`${find('Deployment', '-api').spec.template.spec.terminationGracePeriodSeconds}s`, services.api.stop_grace_period);

    // Every pod's resources are bounded in memory.
    for (const c of [api, worker, migrate]) assert.ok(c.resources.limits?.memory, `${c.name} has a memory limit`);
  });

  it("runs as the image's non-root user, with no privilege to gain", async () => {
    // eslint-disable-next-line no-restricted-properties -- the image the lane built (scripts/containers/test names it)
    const image = process.env.PLATFORM_IMAGE ?? 'localhost/platform-api:local';
    // eslint-disable-next-line no-restricted-properties -- this machine's container limits, from scripts/containers/lib.sh
    const limits = (process.env.CONTAINER_RUN_ARGS ?? '').split(' ').filter(Boolean);
    const uid = await podman(['run', '--rm', ...limits, image, 'id', '-u']).catch(() => undefined);
    for (const manifest of manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'Job')) {
      const pod = manifest.spec.template.spec;
      assert.equal(pod.securityContext.runAsNonRoot, true, manifest.metadata.name);
      if (uid !== undefined) assert.equal(String(pod.securityContext.runAsUser), uid, `${manifest.metadata.name}: the image's user`);
      for (const c of pod.containers) {
        assert.equal(c.securityContext.allowPrivilegeEscalation, false);
        assert.deepEqual((c.securityContext.capabilities as { drop: string[] }).drop, ['ALL']);
      }
    }
    // Each value the chart reads is documented in values.yaml (a comment above it or its block).
    const values = readFileSync(path.join(CHART, 'values.yaml'), 'utf8');
    for (const key of ['existingSecret', 'temporal', 'migrations', 'api', 'worker', 'service', 'ingress', 'podSecurityContext']) {
      assert.match(values, new RegExp(`#[^\\n]*\\n(?:#[^\\n]*\\n)*${key}:`), `values.yaml explains ${key}`);
    }
  });
});
