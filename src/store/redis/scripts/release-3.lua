--[[
  Releases a claim: deletes the lock when the token still holds it (compare-and-delete), then
  drops the conversation from the ready set when its list is empty, or makes it ready at
  `readyAt` (and announces it when that is not later than now).

  Input:
    KEYS[1] lock
    KEYS[2] list
    KEYS[3] ready set of the queue in the partition
    ARGV[1] token
    ARGV[2] conversation id
    ARGV[3] ready-at (ms)
    ARGV[4] now (ms)
    ARGV[5] ready channel
    ARGV[6] ready message
  Output:
    1 when released, 0 when the token no longer held the lock (nothing changed)
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
if redis.call('LLEN', KEYS[2]) == 0 then
  redis.call('ZREM', KEYS[3], ARGV[2])
else
  redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
  if tonumber(ARGV[3]) <= tonumber(ARGV[4]) then
    redis.call('PUBLISH', ARGV[5], ARGV[6])
  end
end
return 1
