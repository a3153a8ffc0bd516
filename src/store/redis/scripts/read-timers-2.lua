--[[
  Reads the pending timers of a conversation, soonest first.

  Input:
    KEYS[1] timers of the conversation (zset: timer id → due time)
    KEYS[2] timer key prefix (+ timer id)
  Output:
    what is stored for each (its TimerEvent JSON less receivedAt and '}'), in due order
]]
local timers = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local stored = redis.call('GET', KEYS[2] .. id)
  if stored then
    timers[#timers + 1] = stored
  end
end
return timers
