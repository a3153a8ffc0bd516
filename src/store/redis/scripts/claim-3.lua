--[[
  Claims the conversation of a queue's partition that has been ready longest. A ready time
  at or before `now` is also the end of the previous holder's lease (claim and every commit
  push it to now + lease), so a lock still present then is taken over: the old token stops
  holding it. Conversations found with an empty list are dropped from the ready set.

  Input:
    KEYS[1] ready set of the queue in the partition
    KEYS[2] lock key prefix (+ conversation id)
    KEYS[3] list key prefix (+ conversation id)
    ARGV[1] now (ms)
    ARGV[2] lease (ms)
    ARGV[3] the new token
  Output:
    the claimed conversation id, or '' when nothing is ready
]]
local now = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])

-- Bounded, so one call never walks a long run of emptied conversations.
for _ = 1, 16 do
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 1)[1]
  if not due then
    return ''
  end
  if redis.call('LLEN', KEYS[3] .. due) == 0 then
    redis.call('ZREM', KEYS[1], due)
  else
    local lock = KEYS[2] .. due
    redis.call('HSET', lock, 'token', ARGV[3], 'lease', lease)
    redis.call('PEXPIRE', lock, lease)
    redis.call('ZADD', KEYS[1], now + lease, due)
    return due
  end
end
return ''
