// The bot of the campaigns bench's `cli` phase (REPLYFLOW_BOTS_DIR): no input schema, so the
// bench measures the import and not a bot's checks. It imports replyflow as any bots folder
// does, so the command holds the whole library, as a user's would.
import { defineBot } from 'replyflow';
import { setup } from 'xstate';

export default defineBot({
  id: 'reminder',
  machine: setup({}).createMachine({ initial: 'done', states: { done: { type: 'final' } } }),
});
