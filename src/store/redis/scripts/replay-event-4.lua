--[[
  Queues a dead letter again with its id, due now, its attempts and retry window from zero. The
  subscriptions that took it are kept (they do not get it again); those given up are cleared,
  so they are tried again.

  Input:
    KEYS[1] events of the partition (hash: id → event value)
    KEYS[2] their due times (zset)
    KEYS[3] dead letters of the partition (hash: id → event value)
    KEYS[4] their times (zset)
    ARGV[1] event id
    ARGV[2] now (ms)
  Output:
    1, or 0 when the partition has no such dead letter
]]
local value = redis.call('HGET', KEYS[3], ARGV[1])
if not value then
  return 0
end
local header, body = eventHeader(value)
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1],
  eventWithHeader({0, tonumber(ARGV[2]), '', 0, '', header[6], ''}, body))
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]), ARGV[1])
return 1
