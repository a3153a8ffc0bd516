--[[
  Keeps an outbox claim alive while its holder's request is in flight: when the token still
  holds the lock, pushes the conversation's ready time (the claim's lease) to now + lease, so
  no other claim takes the outbox over from a live holder (claim-8.lua).

  Input:
    KEYS[1] outbox lock
    KEYS[2] outbox ready set of the partition
    ARGV[1] token
    ARGV[2] the lease's new end (ms): now + lease
    ARGV[3] conversation id
  Output:
    'ok' | 'lost-lock'
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return 'lost-lock'
end
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[3])
return 'ok'
