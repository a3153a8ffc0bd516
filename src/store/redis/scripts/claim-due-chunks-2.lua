--[[
  The runner's claim: the chunks of the partition's due campaigns whose earliest recipient is
  due, at most `max`, soonest first. Each claimed chunk moves to now + lease, and its campaign
  with it, so another runner passes it by until the lease ends (a runner that dies leaves it to
  the next after the lease); `settle-chunk` puts it back at its real next time.

  Input:
    KEYS[1] the partition's due campaigns (zset: campaign id → earliest due)
    KEYS[2] campaign chunks key prefix (+ campaign id): zset chunk → earliest due
    ARGV[1] now (ms)
    ARGV[2] lease (ms)
    ARGV[3] max chunks
  Output:
    {campaign id, chunk, …}
]]
local now, lease, max = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local claimed = {}
for _, campaign in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, max)) do
  local chunksKey = KEYS[2] .. campaign
  local left = max - #claimed / 2
  if left <= 0 then
    break
  end
  for _, chunk in ipairs(redis.call('ZRANGEBYSCORE', chunksKey, '-inf', now, 'LIMIT', 0, left)) do
    redis.call('ZADD', chunksKey, now + lease, chunk)
    claimed[#claimed + 1] = campaign
    claimed[#claimed + 1] = chunk
  end
  local first = redis.call('ZRANGE', chunksKey, 0, 0, 'WITHSCORES')
  if first[2] then
    redis.call('ZADD', KEYS[1], first[2], campaign)
  else
    redis.call('ZREM', KEYS[1], campaign)
  end
end
return claimed
