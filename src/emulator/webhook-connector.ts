import type { LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { guardedConnector } from '../provider/address-guard.ts';
import type { EmulatorConfig } from './emulator-options.ts';
import { isLoopback } from './is-loopback.ts';

/**
 * How the emulator connects to webhooks. Listening beyond loopback without
 * `allowPrivateWebhooks`, each connection is refused when its address is loopback, private or
 * link-local, checked as it connects (a name rebound to 127.0.0.1 after registration is caught),
 * except for the trusted origins (`replyflow dev`'s own webhook). Otherwise undici's own.
 */
export function webhookConnector(
  config: EmulatorConfig,
  lookup: LookupFunction,
): buildConnector.connector | undefined {
  if (isLoopback(config.host) || config.allowPrivateWebhooks) return undefined;
  const guarded = guardedConnector({ lookup });
  const trusted = new Set(config.trustedWebhookOrigins.map((origin) => originKey(new URL(origin))));
  if (trusted.size === 0) return guarded;
  const plain = buildConnector({ lookup });
  return (target, callback) => {
    if (trusted.has(originKey(target))) plain(target, callback);
    else guarded(target, callback);
  };
}

/** `http://127.0.0.1:80` from a URL or from what undici gives a connector (brackets or not). */
function originKey(target: { protocol: string; hostname: string; port: string }): string {
  const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  return `${target.protocol}//${host}:${port}`;
}
