import type { AppConfig } from './config.ts';

/**
 * `replyflow dev`'s configuration: its event receivers are local (a booking system on
 * localhost, a container on the LAN), so every subscription may reach private addresses.
 */
export function allowPrivateEvents(config: AppConfig): AppConfig {
  return {
    ...config,
    locations: config.locations.map((location) =>
      location.events
        ? {
            ...location,
            events: location.events.map((s) => ({ ...s, allowPrivateAddresses: true })),
          }
        : location,
    ),
  };
}
