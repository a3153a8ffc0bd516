import type { Group } from '../provider/schemas/group.ts';
import type { EmulatorContext } from './emulator-context.ts';

/**
 * Creates a group in a location of the emulated account, as `POST /groups` does (`source:
 * "user"`, the next id): the API route and `replyflow dev`'s contacts group both make theirs here.
 *
 * @example
 * const { id } = addGroup(context, 'default', 'Subscribers');
 */
export function addGroup(context: EmulatorContext, location: string, name: string): Group {
  const now = new Date(context.clock.now()).toISOString();
  const group: Group = {
    id: context.locations.nextGroupId(),
    name,
    createdAt: now,
    updatedAt: now,
    source: 'user',
  };
  context.locations.get(location).groups.set(group.id, group);
  return group;
}
