--[[
  Claims the due events of a partition's event outbox: up to ARGV[3], soonest first, each
  moved to now + lease (the lease is its due time: a claimer that dies leaves it to the next
  claim once the lease ran out).

  Input:
    KEYS[1] events of the partition (hash: id → event value, event-value.ts)
    KEYS[2] their due times (zset: id → due, ms)
    ARGV[1] now (ms)
    ARGV[2] lease (ms)
    ARGV[3] the most to claim
  Output:
    {id, value, id, value, …}
]]
local now = tonumber(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  local value = redis.call('HGET', KEYS[1], id)
  if value then
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), id)
    out[#out + 1] = id
    out[#out + 1] = value
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return out
