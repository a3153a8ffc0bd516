import { z } from 'zod';
import { type ApiRoute, apiRoutes } from './openapi.ts';

const jsonSchema = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });

/** The OpenAPI 3.1 document of `apiRoutes` (`GET /admin/openapi.json`), zod schemas as JSON Schema 2020-12. */
export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of apiRoutes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const parameters = [
      ...[...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
        name,
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      ...queryParameters(route.query),
    ];
    paths[path] ??= {};
    paths[path][route.method] = {
      summary: route.summary,
      // The login is the one route served without a credential.
      ...(route.path === '/admin/login' && { security: [] }),
      ...(parameters.length > 0 && { parameters }),
      ...(route.body && { requestBody: requestBody(route.body) }),
      responses: Object.fromEntries(
        Object.entries(route.responses).map(([status, description]) => [status, { description }]),
      ),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'replyflow admin API', version: '1' },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'REPLYFLOW_ADMIN_TOKEN (full) or REPLYFLOW_ADMIN_READ_TOKEN (GET and HEAD only)',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'replyflow_admin',
          description: 'POST /admin/login; changes also need the x-csrf-token header',
        },
      },
    },
    security: [{ bearer: [] }, { session: [] }],
    paths,
  };
}

function queryParameters(query: z.ZodObject | undefined) {
  if (!query) return [];
  const schema = jsonSchema(query) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: property,
  }));
}

function requestBody(body: NonNullable<ApiRoute['body']>) {
  const types = body.types ?? ['application/json'];
  const schema = 'schema' in body ? jsonSchema(body.schema) : { type: 'string' };
  return {
    required: true,
    content: Object.fromEntries(types.map((type) => [type, { schema }])),
  };
}
