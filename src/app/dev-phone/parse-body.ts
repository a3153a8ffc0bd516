import type { Response } from 'express';
import type { z } from 'zod';

/** The body as `schema` reads it, or undefined after answering 400 with every problem named. */
export function parse<T>(schema: z.ZodType<T>, body: unknown, res: Response): T | undefined {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  res.status(400).json({
    error: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
  });
  return undefined;
}
