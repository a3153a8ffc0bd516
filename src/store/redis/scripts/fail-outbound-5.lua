--[[
  A permanent send failure: pops the head message and pushes the status event onto the
  conversation's mailbox (making the mailbox ready), so the bot hears of it; the outbox lease
  is extended for the messages that follow.

  Input:
    KEYS[1] outbox lock
    KEYS[2] outbox list
    KEYS[3] mailbox
    KEYS[4] inbox ready set of the partition
    KEYS[5] outbox ready set of the partition
    ARGV[1] token
    ARGV[2] outbox message id (the expected head)
    ARGV[3] status event JSON
    ARGV[4] now (ms)
    ARGV[5] conversation id
    ARGV[6] ready channel
    ARGV[7] inbox ready message
  Output:
    'ok' | 'lost-lock' | 'stale'
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return 'lost-lock'
end
local head = redis.call('LINDEX', KEYS[2], 0)
if not head or cjson.decode(head).id ~= ARGV[2] then
  return 'stale'
end
redis.call('LPOP', KEYS[2])
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('ZADD', KEYS[4], 'NX', ARGV[4], ARGV[5])
redis.call('PUBLISH', ARGV[6], ARGV[7])

-- The outbox lock has no TTL (see claim-8.lua): the lease is the ready time alone.
local lease = tonumber(redis.call('HGET', KEYS[1], 'lease'))
redis.call('ZADD', KEYS[5], 'XX', tonumber(ARGV[4]) + lease, ARGV[5])
return 'ok'
