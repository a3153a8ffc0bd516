import type { Router } from 'express';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import survey from '../../../bots/survey.ts';
import { createAdminRouter } from '../../../src/admin/create-admin-router.ts';
import { dashboardPages } from '../../../src/admin/dashboard/create-dashboard-router.ts';
import { apiRoutes } from '../../../src/admin/dashboard/openapi.ts';
import { openApiDocument } from '../../../src/admin/dashboard/openapi-document.ts';
import type { LocationConfig } from '../../../src/app/config.ts';
import { createBotRegistry } from '../../../src/bot/bot-registry.ts';
import { systemClock } from '../../../src/scheduler/clock.ts';
import { createMemoryStore } from '../../../src/store/memory/create-memory-store.ts';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
}

/** `METHOD path` of every route mounted in a router, its nested routers included. */
function mountedRoutes(router: { stack: Layer[] }): string[] {
  const found: string[] = [];
  for (const layer of router.stack) {
    if (layer.route) {
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on && method !== '_all') found.push(`${method} ${layer.route.path}`);
      }
    } else if (layer.handle?.stack)
      found.push(...mountedRoutes(layer.handle as { stack: Layer[] }));
  }
  return found;
}

describe('the OpenAPI document', () => {
  const router = createAdminRouter({
    store: createMemoryStore({}),
    registry: createBotRegistry([{ bot: survey, file: 'bots/survey.ts' }]),
    clock: systemClock,
    config: { locations: [{ name: 'paris' } as LocationConfig], adminToken: 'a'.repeat(8) },
    logger: pino({ level: 'silent' }),
  }) as Router & { stack: Layer[] };

  it('lists every JSON route mounted under /admin, and no route that is not mounted', () => {
    const mounted = mountedRoutes(router);
    const pages = new Set(dashboardPages.map((page) => `get ${page.path}`));
    // Each page takes one mounted route: a page that shares its path with a JSON route
    // (GET /admin/campaigns, HTML to a browser only) leaves the other to the document.
    const api = [...mounted];
    for (const page of pages) if (api.includes(page)) api.splice(api.indexOf(page), 1);
    expect(api.every((route) => route.split(' ')[1]!.startsWith('/admin'))).toBe(true);
    const documented = apiRoutes.map((route) => `${route.method} ${route.path}`);
    expect([...api].sort()).toEqual([...documented].sort());
    // Every page is mounted too.
    for (const page of pages) expect(mounted).toContain(page);
    expect(api.length).toBeGreaterThanOrEqual(19);
  });

  it('is OpenAPI 3.1 with the routes’ zod schemas as JSON Schema', () => {
    const document = openApiDocument() as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            parameters?: Array<{ name: string; in: string; required: boolean }>;
            requestBody?: {
              content: Record<string, { schema: { properties?: Record<string, unknown> } }>;
            };
          }
        >
      >;
    };
    expect(document.openapi).toBe('3.1.0');
    const start = document.paths['/admin/conversations']?.post;
    expect(
      Object.keys(start?.requestBody?.content['application/json']?.schema.properties ?? {}),
    ).toEqual(expect.arrayContaining(['bot', 'phone', 'location', 'key']));
    const results = document.paths['/admin/api/results']?.get?.parameters ?? [];
    expect(results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'bot', in: 'query', required: true }),
        expect.objectContaining({ name: 'from', in: 'query', required: false }),
      ]),
    );
    expect(document.paths['/admin/campaigns/{name}/pause']?.post?.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'name', in: 'path', required: true }),
      ]),
    );
  });
});
