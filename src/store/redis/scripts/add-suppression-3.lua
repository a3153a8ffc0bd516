--[[
  Puts a phone on its location's suppression list unless it is there already (then nothing
  changes), and queues its optout event (issue 24) into the partition's event outbox in the
  same call, so an opt-out made by an operator reaches the subscriptions exactly once.

  Input:
    KEYS[1] suppression of the phone
    KEYS[2] outbound events of the partition (hash: id → event value, event-value.ts)
    KEYS[3] their due times (zset: id → due, ms)
    ARGV[1] the suppression's value (suppression.ts)
    ARGV[2] the event's id
    ARGV[3] the event's value
    ARGV[4] when it is due (ms)
  Output:
    1 when the phone was added, 0 when it was on the list
]]
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  return 0
end
if redis.call('HSETNX', KEYS[2], ARGV[2], ARGV[3]) == 1 then
  redis.call('ZADD', KEYS[3], tonumber(ARGV[4]), ARGV[2])
end
return 1
