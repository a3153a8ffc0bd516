import { hash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { apiErrorCodes, EmulatorApiError } from './emulator-api-error.ts';
import type { EmulatorKeyPair } from './emulator-options.ts';

/**
 * Requires `X-API-KEY-ID` and `X-API-KEY-SECRET` on every request (spec §5) and binds the
 * request to the key pair's location. Missing or wrong credentials answer 401 (the spec does
 * not show the status; 401 is our documented assumption).
 */
export function authenticate(keyPairs: readonly EmulatorKeyPair[]): RequestHandler {
  return (req, res, next) => {
    const id = req.get('x-api-key-id');
    const secret = req.get('x-api-key-secret');
    if (!id || !secret) {
      return next(
        new EmulatorApiError(
          401,
          apiErrorCodes.UNAUTHORIZED,
          'missing credentials: send the X-API-KEY-ID and X-API-KEY-SECRET headers',
        ),
      );
    }
    const pair = keyPairs.find((candidate) => candidate.id === id);
    // Compared in constant time even when the id is unknown, so timing tells nothing.
    const secretMatches = sameSecret(secret, pair?.secret ?? '');
    if (!pair || !secretMatches) {
      return next(
        new EmulatorApiError(
          401,
          apiErrorCodes.UNAUTHORIZED,
          'unknown API key id or wrong secret: use a key pair the emulator was started with',
        ),
      );
    }
    res.locals.keyPair = pair;
    next();
  };
}

/** The key pair `authenticate` bound to this request. */
export function authenticatedKeyPair(res: Response): EmulatorKeyPair {
  const pair = res.locals.keyPair as EmulatorKeyPair | undefined;
  if (!pair) throw new Error('authenticate() must run before this handler');
  return pair;
}

function sameSecret(given: string, expected: string): boolean {
  return (
    timingSafeEqual(hash('sha256', given, 'buffer'), hash('sha256', expected, 'buffer')) &&
    expected !== ''
  );
}
