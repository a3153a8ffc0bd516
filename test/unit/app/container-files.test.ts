import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { pino } from 'pino';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configVariables, loadConfig } from '../../../src/app/config.ts';
import { createHttpApp } from '../../../src/app/create-http-app.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { registerServeCommands } from '../../../src/cli/serve-commands.ts';
import { createMetrics } from '../../../src/observability/metrics.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';
import echo from '../../fixtures/bots/echo-bot.ts';

/**
 * There is no container engine here: these read compose.yaml and the Dockerfile and check what
 * can be checked without one.
 */
const root = new URL('../../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string | string[] };
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(read('compose.yaml')) as { services: Record<string, Service> };
const dockerfile = read('Dockerfile');

/** A value for each `${VAR:?…}` a user must give in .env, as they would give it. */
const userValues: Record<string, string> = {
  REPLYFLOW_PROVIDER_URL: 'https://api.example.com/v1',
  REPLYFLOW_API_KEY_ID: 'key-id',
  REPLYFLOW_API_KEY_SECRET: 'key-secret',
  REPLYFLOW_WEBHOOK_SECRET: '0123456789abcdef0123456789abcdef',
  REPLYFLOW_PUBLIC_URL: 'https://bots.example.com',
  REPLYFLOW_ADMIN_TOKEN: 'e3b7a91f04c6d852f1a0e9c7b35d4862af0c17e95b3d28f4',
};

/** Compose's interpolation: `${VAR:?message}` is required, `${VAR:-default}` has a default. */
function interpolate(value: string): string {
  return value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_, name: string, kind, rest: string) => {
    if (kind === '-') return rest;
    const given = userValues[name];
    if (given === undefined) throw new Error(`no sample value for required ${name}`);
    return given;
  });
}

/** The URL a healthcheck probes, with `PORT` and `REPLYFLOW_HEALTH_PORT` as the env gives them. */
function probedUrl(test: string, env: Record<string, string>): URL {
  const match = /fetch\((.+?)\)\.then/.exec(test);
  if (!match) throw new Error(`no fetch() in healthcheck ${test}`);
  // The expression is plain JavaScript over process.env: evaluate it with this service's env.
  const url = new Function('process', `return ${match[1]}`)({ env }) as string;
  return new URL(url);
}

async function servedStatus(path: string): Promise<number> {
  const store = createMemoryStore({});
  const app = createHttpApp({
    store,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    secrets: new Map(),
    ops: {
      store,
      registry: createBotRegistry([{ bot: echo, file: 'echo.ts' }]),
      draining: () => false,
      metrics: createMetrics(),
      adminToken: undefined,
    },
  });
  return (await request(app).get(path)).status;
}

describe('compose.yaml', () => {
  it('runs redis, app and two workers, each with a healthcheck', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['app', 'redis', 'worker']);
    expect(compose.services.worker?.deploy?.replicas).toBe(2);
    for (const service of Object.values(compose.services))
      expect(service.healthcheck).toBeDefined();
    for (const name of ['app', 'worker']) {
      expect(compose.services[name]?.depends_on?.redis?.condition).toBe('service_healthy');
    }
  });

  it('keeps Redis on disk every second and never evicts', () => {
    const command = (compose.services.redis?.command ?? []).join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--appendfsync everysec');
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(JSON.stringify(compose.services.redis?.healthcheck?.test)).toContain('redis-cli ping');
  });

  it('gives app and worker only variables the config accepts, none empty, and a config that loads', async () => {
    for (const name of ['app', 'worker']) {
      const env = compose.services[name]?.environment ?? {};
      for (const [key, raw] of Object.entries(env)) {
        expect(configVariables, `${name}: ${key}`).toContain(key);
        expect(String(raw), `${name}: ${key}`).not.toMatch(/^\s*$|\$\{\w+:-\}/);
        expect(interpolate(String(raw)), `${name}: ${key}`).not.toBe('');
      }
      const resolved = Object.fromEntries(
        Object.entries(env).map(([key, raw]) => [key, interpolate(String(raw))]),
      );
      const config = await loadConfig(resolved);
      expect(config.redisUrl, name).toBe('redis://redis:6379');
      expect(config.locations, name).toHaveLength(1);
    }
  });

  it('runs CLI commands that exist, with the variables each needs', async () => {
    const program = new Command();
    registerServeCommands(program);
    const commands = program.commands.map((c) => c.name());
    const app = compose.services.app!;
    const worker = compose.services.worker!;
    expect(commands).toContain(app.command?.[0]);
    expect(commands).toContain(worker.command?.[0]);
    // The web role needs the webhook secret; registering the webhook needs the public URL.
    expect(Object.keys(app.environment ?? {})).toEqual(
      expect.arrayContaining(['REPLYFLOW_WEBHOOK_SECRET', 'REPLYFLOW_PUBLIC_URL']),
    );
  });

  it('probes paths the app serves, on the ports it listens on', async () => {
    const app = compose.services.app!;
    const appEnv = app.environment ?? {};
    const appProbe = probedUrl(JSON.stringify(app.healthcheck?.test), appEnv);
    expect(appProbe.port).toBe(appEnv.PORT);
    expect(app.ports?.map((p) => p.split(':').at(-1))).toEqual([appEnv.PORT]);
    const worker = compose.services.worker!;
    const workerEnv = worker.environment ?? {};
    const workerProbe = probedUrl(JSON.stringify(worker.healthcheck?.test), workerEnv);
    // A worker serves no HTTP but its health routes, on REPLYFLOW_HEALTH_PORT.
    expect(workerProbe.port).toBe(workerEnv.REPLYFLOW_HEALTH_PORT);
    for (const probe of [appProbe, workerProbe]) {
      expect(probe.pathname).toBe('/readyz');
      expect(await servedStatus(probe.pathname)).toBe(200);
    }
  });
});

describe('Dockerfile', () => {
  const stages = dockerfile.match(/^FROM\s.+$/gm) ?? [];
  const final = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it('is multi-stage, installs production dependencies only, and runs as a user other than root', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/RUN npm ci --omit=dev/);
    expect(final).toMatch(/COPY --from=\w+ \/app\/node_modules/);
    const user = /^USER\s+(\S+)/m.exec(final)?.[1];
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(final).not.toMatch(/npm (ci|install)/);
  });

  it('copies what the entry point needs, with tsx among the production dependencies', () => {
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).toContain('tsx');
    for (const [, from] of final.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const path of from!.split(/\s+/))
        expect(existsSync(new URL(path, root)), path).toBe(true);
    }
    const entry = /ENTRYPOINT \["node", "([^"]+)"\]/.exec(final)?.[1];
    expect(entry && existsSync(new URL(entry, root))).toBe(true);
  });

  it('keeps node_modules, .git and local secrets out of the build context, and nothing the image copies', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', '.git', '.env']));
    for (const [, from] of final.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const path of from!.split(/\s+/)) expect(ignored, path).not.toContain(path);
    }
  });

  it('checks health on /readyz, on the port each role serves it', async () => {
    const healthcheck = /HEALTHCHECK[\s\S]*?CMD (.+)$/m.exec(dockerfile)?.[1] ?? '';
    const exposed = /^EXPOSE (\d+)/m.exec(final)?.[1];
    const defaults = await loadConfig({});
    expect(exposed).toBe(String(defaults.port));
    // start/web: PORT (default 3000); worker: REPLYFLOW_HEALTH_PORT.
    expect(probedUrl(healthcheck, {}).port).toBe(String(defaults.port));
    expect(probedUrl(healthcheck, { PORT: '8080' }).port).toBe('8080');
    expect(probedUrl(healthcheck, { REPLYFLOW_HEALTH_PORT: '3001', PORT: '3000' }).port).toBe(
      '3001',
    );
    expect(probedUrl(healthcheck, {}).pathname).toBe('/readyz');
    expect(await servedStatus('/readyz')).toBe(200);
  });
});
