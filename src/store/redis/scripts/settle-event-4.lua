--[[
  Settles a claimed event: delivered (deleted), retry (due at a later time, one attempt more,
  the error kept) or dead letter (moved to the partition's dead letters: at most a cap, none
  older than the retention, both keys expiring the retention after the last one). A retry or a
  dead letter also adds the subscriptions that took it, and those given up, to the event's.

  Input:
    KEYS[1] events of the partition (hash: id → event value)
    KEYS[2] their due times (zset)
    KEYS[3] dead letters of the partition (hash: id → event value)
    KEYS[4] their times (zset: id → when it became one, ms)
    ARGV[1] event id
    ARGV[2] 'delivered' | 'retry' | 'dead'
    ARGV[3] retry: the due time (ms)
    ARGV[4] retry: the error; dead: the reason
    ARGV[5] now (ms)
    ARGV[6] dead letters cap (per partition)
    ARGV[7] retention (ms)
    ARGV[8] subscription keys that took it, space-separated ('' for none)
    ARGV[9] subscriptions given up, `key=error` space-separated ('' for none)
  Output:
    1, or 0 when the event is not queued (settled already)
]]
local value = redis.call('HGET', KEYS[1], ARGV[1])
if not value then
  return 0
end
local kind = ARGV[2]
if kind == 'delivered' then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 1
end
local header, body = eventHeader(value)
header[1] = header[1] + 1
header[6] = withWords(header[6], ARGV[8] or '')
header[7] = withWords(header[7], ARGV[9] or '')
if kind == 'retry' then
  header[3] = ARGV[4]
  redis.call('HSET', KEYS[1], ARGV[1], eventWithHeader(header, body))
  redis.call('ZADD', KEYS[2], tonumber(ARGV[3]), ARGV[1])
  return 1
end
local now, retention = tonumber(ARGV[5]), tonumber(ARGV[7])
header[4] = now
header[5] = ARGV[4]
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], eventWithHeader(header, body))
redis.call('ZADD', KEYS[4], now, ARGV[1])
-- None older than the retention, and at most the cap: the oldest go first.
local gone = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - retention)
local over = redis.call('ZCARD', KEYS[4]) - #gone - tonumber(ARGV[6])
if over > 0 then
  gone = redis.call('ZRANGE', KEYS[4], 0, #gone + over - 1)
end
for _, id in ipairs(gone) do
  redis.call('HDEL', KEYS[3], id)
  redis.call('ZREM', KEYS[4], id)
end
redis.call('PEXPIRE', KEYS[3], retention)
redis.call('PEXPIRE', KEYS[4], retention)
return 1
