import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { guardedConnector } from '../provider/address-guard.ts';

let guarded: Agent | undefined;
let open: Agent | undefined;
const withLookup = new WeakMap<LookupFunction, Agent>();

/**
 * The dispatcher events go through. Guarded: every connection's address is checked as it
 * connects (names resolved then, with every address they have; IP literals before it), so a
 * name rebound to an inside address after start is still refused. `lookup` replaces the
 * system resolver of the guarded one (tests: a name that resolves inside a network).
 */
export function eventAgent(allowPrivate: boolean, lookup?: LookupFunction): Agent {
  if (allowPrivate) {
    open ??= new Agent();
    return open;
  }
  if (lookup) {
    let agent = withLookup.get(lookup);
    if (!agent) {
      agent = new Agent({ connect: guardedConnector({ lookup }) });
      withLookup.set(lookup, agent);
    }
    return agent;
  }
  guarded ??= new Agent({ connect: guardedConnector() });
  return guarded;
}
