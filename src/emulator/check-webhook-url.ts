import type { LookupFunction } from 'node:net';
import {
  type AddressClass,
  assertPublicHost,
  BlockedAddressError,
} from '../provider/address-guard.ts';
import { apiErrorCodes, EmulatorApiError } from './emulator-api-error.ts';
import type { EmulatorConfig } from './emulator-options.ts';
import { isLoopback } from './is-loopback.ts';

/**
 * Refuses (400 naming the option) a webhook URL the emulator must not call. Listening on
 * loopback only, it calls this machine, and other hosts with `allowRemoteWebhooks`. Listening
 * beyond, a URL whose host is or resolves to a loopback, private or link-local address needs
 * `allowPrivateWebhooks` too, or anyone who reaches the emulator could make it call into this
 * machine or its network. The delivery checks the address again as it connects
 * (`webhook-connector.ts`): DNS can change meanwhile.
 */
export async function checkWebhookUrl(
  url: URL,
  config: EmulatorConfig,
  lookup: LookupFunction,
): Promise<void> {
  if (config.trustedWebhookOrigins.includes(url.origin)) return;
  const host = url.hostname;
  const exposed = !isLoopback(config.host);
  if (!exposed && isLoopback(host)) return;
  if (exposed || config.allowPrivateWebhooks) {
    const blocked = isLoopback(host)
      ? new BlockedAddressError(host, host, 'loopback')
      : await nonPublic(host, lookup);
    if (blocked && !config.allowPrivateWebhooks) throw privateRefused(blocked, config.host);
    if (blocked) return;
  }
  if (config.allowRemoteWebhooks) return;
  throw new EmulatorApiError(
    400,
    apiErrorCodes.INVALID_PARAMETER,
    `invalid parameter 'url': the emulator calls only this machine (127.0.0.1, ::1, localhost), not '${host}'; start it with --allow-remote-webhooks to call other hosts`,
    'url',
  );
}

/** The refusal of `assertPublicHost`, or undefined for a public host or one that does not resolve. */
async function nonPublic(host: string, lookup: LookupFunction) {
  try {
    await assertPublicHost(host, lookup);
    return undefined;
  } catch (error) {
    // A name that does not resolve now is no address yet: the delivery checks it as it connects.
    if (error instanceof BlockedAddressError) return error;
    if (typeof (error as NodeJS.ErrnoException).code === 'string') return undefined;
    throw error;
  }
}

function privateRefused(blocked: BlockedAddressError, listening: string): EmulatorApiError {
  const what: Record<AddressClass, string> = {
    loopback: 'this machine',
    private: 'a private network',
    'link-local': 'the local link (cloud metadata included)',
  };
  const is =
    blocked.host === blocked.address
      ? `'${blocked.host}' is a ${blocked.addressClass} address`
      : `'${blocked.host}' resolves to ${blocked.address}, a ${blocked.addressClass} address`;
  return new EmulatorApiError(
    400,
    apiErrorCodes.INVALID_PARAMETER,
    `invalid parameter 'url': ${is}, and the emulator listens beyond loopback (${listening}): anyone who reaches it could make it call ${what[blocked.addressClass]}; start it with --allow-private-webhooks (allowPrivateWebhooks) to call loopback, private and link-local addresses`,
    'url',
  );
}
