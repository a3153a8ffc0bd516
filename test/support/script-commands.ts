import type { Redis } from 'ioredis';

/**
 * The names of the script commands a connection sends (FCALL, EVALSHA, EVAL), in order. A
 * command issued before the connection is ready goes through `sendCommand` twice (queued, then
 * written): it is counted once.
 */
export function recordScriptCommands(redis: Redis): string[] {
  const sent: string[] = [];
  const seen = new WeakSet<object>();
  const sendCommand = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    if (['fcall', 'evalsha', 'eval'].includes(command.name) && !seen.has(command)) {
      seen.add(command);
      sent.push(command.name);
    }
    return sendCommand(command, stream);
  };
  return sent;
}
