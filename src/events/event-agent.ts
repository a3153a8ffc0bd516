import { Agent } from 'undici';
import { guardedConnector } from '../provider/address-guard.ts';

let guarded: Agent | undefined;
let open: Agent | undefined;

/**
 * The dispatcher events go through. Guarded: every connection's address is checked as it
 * connects (names resolved then, with every address they have; IP literals before it), so a
 * name rebound to an inside address after start is still refused.
 */
export function eventAgent(allowPrivate: boolean): Agent {
  if (allowPrivate) {
    open ??= new Agent();
    return open;
  }
  guarded ??= new Agent({ connect: guardedConnector() });
  return guarded;
}
