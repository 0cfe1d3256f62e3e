/**
 * Runs docker-compose.yml with podman, as `docker compose up` would, on machines where Debian's
 * podman-compose (1.0.3) cannot: it starts every service at once whatever `depends_on` says (no
 * `service_healthy`, no `service_completed_successfully`), passes `${VAR:-}` through unsubstituted
 * and stops at the file's YAML merge key. This reads the same file and honours the keys it uses:
 * images, commands, entry points, environment (interpolated from `env`), named and bind volumes,
 * ports, restart policies, health checks, `deploy.replicas`, `stop_grace_period`, and start order
 * with every dependency's condition met first. Containers are `<project>_<service>_<n>` on the
 * network `<project>_default`, each answering to its service's name there (every replica of
 * `api` answers `api`).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import YAML from 'yaml';

const exec = promisify(execFile);

interface ServiceSpec {
  image: string;
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string | number | boolean | null>;
  volumes?: string[];
  ports?: string[];
  restart?: string;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number; start_period?: string };
  deploy?: { replicas?: number };
  stop_grace_period?: string;
}

export interface ComposeOptions {
  file: string;
  project: string;
  /** What `${VAR}` in the file reads (a `.env` file's part in `docker compose`). */
  env: Record<string, string | undefined>;
  /** Required variables (`${VAR:?}`) may be missing: for `down`, which starts nothing. */
  lenient?: boolean;
  /** Publish every port on 127.0.0.1 at a free host port instead of the file's (read back with `hostPort`). */
  loopbackPorts?: boolean;
  /** Container ports to publish on 127.0.0.1 besides the file's, by service (a test's access to PostgreSQL, say). */
  extraPorts?: Record<string, number[]>;
  /** Replicas by service, over the file's `deploy.replicas` (as `--scale`). */
  replicas?: Record<string, number>;
  /** Arguments of every `podman run` (this machine's limits). */
  runArgs?: string[];
  log?: (message: string) => void;
}

const PODMAN = ['--runtime', 'runc'];

export async function podman(args: string[], timeoutMs = 300_000): Promise<string> {
  const { stdout } = await exec('podman', [...PODMAN, ...args], { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}` and `$$` (a literal `$`), as compose reads them. */
export function interpolate(value: string, env: Record<string, string | undefined>, lenient = false): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g,
    (match, name?: string, colon?: string, op?: string, arg?: string) => {
      if (match === '$$') return '$';
      const value = env[name!];
      const unset = value === undefined || (colon === ':' && value === '');
      if (op === '?' && unset && !lenient) throw new Error(`${name}: ${arg || 'required'}`);
      if (op === '-' && unset) return arg ?? '';
      return value ?? '';
    },
  );
}

function interpolateAll(node: unknown, env: Record<string, string | undefined>, lenient: boolean): unknown {
  if (typeof node === 'string') return interpolate(node, env, lenient);
  if (Array.isArray(node)) return node.map((item) => interpolateAll(item, env, lenient));
  if (node && typeof node === 'object')
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, interpolateAll(value, env, lenient)]));
  return node;
}

const seconds = (duration: string | undefined, fallback: number) => {
  const match = /^(\d+)(ms|s|m)?$/.exec(duration ?? '');
  if (!match) return fallback;
  const n = Number(match[1]);
  return match[2] === 'm' ? n * 60 : match[2] === 'ms' ? n / 1000 : n;
};

const dependencies = (spec: ServiceSpec): Array<[string, string]> =>
  Array.isArray(spec.depends_on)
    ? spec.depends_on.map((name) => [name, 'service_started'])
    : Object.entries(spec.depends_on ?? {}).map(([name, dep]) => [name, dep?.condition ?? 'service_started']);

export class ComposeProject {
  readonly services: Record<string, ServiceSpec>;
  readonly volumes: string[];
  private readonly dir: string;

  constructor(private readonly options: ComposeOptions) {
    this.dir = path.dirname(path.resolve(options.file));
    const doc = YAML.parse(readFileSync(options.file, 'utf8'), { merge: true }) as {
      services: Record<string, ServiceSpec>;
      volumes?: Record<string, unknown>;
    };
    this.services = interpolateAll(doc.services, options.env, options.lenient ?? false) as Record<string, ServiceSpec>;
    this.volumes = Object.keys(doc.volumes ?? {});
  }

  get network(): string {
    return `${this.options.project}_default`;
  }

  replicas(service: string): number {
    return this.options.replicas?.[service] ?? this.services[service].deploy?.replicas ?? 1;
  }

  containerName(service: string, index = 1): string {
    return `${this.options.project}_${service}_${index}`;
  }

  containers(service: string): string[] {
    return Array.from({ length: this.replicas(service) }, (_, i) => this.containerName(service, i + 1));
  }

  /** Services in an order where each comes after everything it depends on. */
  startOrder(): string[] {
    const order: string[] = [];
    const visit = (name: string, path: string[]) => {
      if (order.includes(name)) return;
      if (path.includes(name)) throw new Error(`dependency cycle: ${[...path, name].join(' -> ')}`);
      if (!this.services[name]) throw new Error(`unknown service ${name}`);
      for (const [dep] of dependencies(this.services[name])) visit(dep, [...path, name]);
      order.push(name);
    };
    for (const name of Object.keys(this.services)) visit(name, []);
    return order;
  }

  /** The `podman run` arguments of one container of `service`. */
  runArgs(service: string, index: number): string[] {
    const spec = this.services[service];
    const args = ['run', '-d', '--name', this.containerName(service, index), ...(this.options.runArgs ?? [])];
    args.push('--label', `io.podman.compose.project=${this.options.project}`, '--label', `com.docker.compose.service=${service}`);
    args.push('--network', this.network, '--network-alias', service);
    for (const [key, value] of Object.entries(spec.environment ?? {})) args.push('-e', `${key}=${value ?? ''}`);
    for (const volume of spec.volumes ?? []) {
      const [source, ...rest] = volume.split(':');
      const bind = source.startsWith('.') || source.startsWith('/');
      args.push('-v', [bind ? path.resolve(this.dir, source) : `${this.options.project}_${source}`, ...rest].join(':'));
    }
    const ports = (spec.ports ?? []).map((port) => (this.options.loopbackPorts ? `127.0.0.1::${port.split(':').pop()}` : port));
    for (const port of [...ports, ...(this.options.extraPorts?.[service] ?? []).map((p) => `127.0.0.1::${p}`)]) args.push('-p', port);
    if (spec.restart) args.push('--restart', spec.restart);
    if (spec.stop_grace_period) args.push('--stop-timeout', String(seconds(spec.stop_grace_period, 10)));
    const check = spec.healthcheck;
    if (check) {
      const [kind, ...test] = check.test;
      args.push('--health-cmd', kind === 'CMD-SHELL' ? test.join(' ') : JSON.stringify(test));
      if (check.interval) args.push('--health-interval', check.interval);
      if (check.timeout) args.push('--health-timeout', check.timeout);
      if (check.retries !== undefined) args.push('--health-retries', String(check.retries));
      if (check.start_period) args.push('--health-start-period', check.start_period);
    }
    if (spec.entrypoint) args.push('--entrypoint', JSON.stringify(spec.entrypoint));
    args.push(spec.image, ...(spec.command ?? []));
    return args;
  }

  /** Creates the network and volumes, then every service in order, each once its dependencies' conditions hold. */
  async up(): Promise<Record<string, number>> {
    const started = Date.now();
    const readyAt: Record<string, number> = {};
    await this.createNetwork();
    for (const volume of this.volumes) {
      await podman([
        'volume',
        'create',
        '--label',
        `io.podman.compose.project=${this.options.project}`,
        `${this.options.project}_${volume}`,
      ]).catch(() => undefined);
    }
    const met = new Set<string>();
    for (const service of this.startOrder()) {
      for (const [dep, condition] of dependencies(this.services[service])) {
        if (met.has(`${dep}:${condition}`)) continue;
        await this.await(dep, condition);
        met.add(`${dep}:${condition}`);
        readyAt[`${dep} (${condition.replace('service_', '')})`] = Date.now() - started;
      }
      for (let i = 1; i <= this.replicas(service); i += 1) await podman(this.runArgs(service, i));
      this.options.log?.(`started ${service} (${this.replicas(service)})`);
    }
    return readyAt;
  }

  /** The project's network (kept if it exists). */
  async createNetwork(): Promise<void> {
    if (
      await podman(['network', 'exists', this.network]).then(
        () => true,
        () => false,
      )
    )
      return;
    await podman(['network', 'create', '--label', `io.podman.compose.project=${this.options.project}`, this.network]);
  }

  /** Waits until every container of `service` meets a `depends_on` condition. */
  async await(service: string, condition: string, timeoutMs = 300_000): Promise<void> {
    for (const name of this.containers(service)) {
      if (condition === 'service_completed_successfully') {
        const code = (await podman(['wait', name], timeoutMs)).split('\n').pop();
        if (code !== '0') throw new Error(`${name} exited ${code}:\n${await this.logs(name)}`);
      } else if (condition === 'service_healthy') {
        await this.healthy(name, timeoutMs);
      } else {
        await this.running(name, timeoutMs);
      }
    }
  }

  /** Runs the container's health check until it passes (podman runs no checks of its own without systemd). */
  async healthy(name: string, timeoutMs = 300_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ok = await podman(['healthcheck', 'run', name], 60_000).then(
        () => true,
        () => false,
      );
      if (ok) return;
      if (Date.now() > deadline) throw new Error(`${name} not healthy within ${timeoutMs} ms:\n${await this.logs(name)}`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  async running(name: string, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.state(name)).status !== 'running') {
      if (Date.now() > deadline) throw new Error(`${name} not running within ${timeoutMs} ms:\n${await this.logs(name)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  async state(name: string): Promise<{ status: string; pid: number; restarts: number }> {
    const [status, pid, restarts] = (
      await podman(['inspect', '--format', '{{.State.Status}} {{.State.Pid}} {{.RestartCount}}', name])
    ).split(' ');
    return { status, pid: Number(pid), restarts: Number(restarts) };
  }

  /** SIGKILL to the container's main process from outside, as a crash: its restart policy applies (`podman kill` would count as a stop). */
  async crash(name: string): Promise<void> {
    const { pid } = await this.state(name);
    if (!pid) throw new Error(`${name} is not running`);
    process.kill(pid, 'SIGKILL');
  }

  async stop(name: string, timeoutSeconds = 10): Promise<void> {
    await podman(['stop', '-t', String(timeoutSeconds), name]);
  }

  async start(name: string): Promise<void> {
    await podman(['start', name]);
  }

  /** The host address (127.0.0.1:port) a container port is published on. */
  async hostPort(service: string, containerPort: number, index = 1): Promise<string> {
    const line = await podman(['port', this.containerName(service, index), `${containerPort}/tcp`]);
    return line.split('\n')[0].replace(/^0\.0\.0\.0:/, '127.0.0.1:');
  }

  /** The address of the network's gateway: this host as the containers reach it. */
  async gateway(): Promise<string> {
    return podman(['network', 'inspect', '--format', '{{range .Subnets}}{{.Gateway}}{{end}}', this.network]);
  }

  async logs(name: string, tail = 60): Promise<string> {
    return exec('podman', ['logs', '--tail', String(tail), name], { maxBuffer: 16 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => `${stdout}${stderr}`,
      (error: Error) => error.message,
    );
  }

  /** Removes every container, the network and (with `volumes`) the volumes. */
  async down(options: { volumes?: boolean } = {}): Promise<void> {
    const ids = await podman(['ps', '-aq', '--filter', `label=io.podman.compose.project=${this.options.project}`]).catch(() => '');
    if (ids) await podman(['rm', '-f', '-t', '5', ...ids.split('\n')]).catch(() => undefined);
    await podman(['network', 'rm', '-f', this.network]).catch(() => undefined);
    if (options.volumes)
      for (const volume of this.volumes) await podman(['volume', 'rm', '-f', `${this.options.project}_${volume}`]).catch(() => undefined);
  }
}
