--[[
  A transient send failure, or a head in doubt after a takeover: stores the head message's
  new attempt count (and the end of its doubt) and releases the claim, the conversation ready
  again at notBefore.

  Input:
    KEYS[1] outbox lock
    KEYS[2] outbox list
    KEYS[3] outbox ready set of the partition
    ARGV[1] token
    ARGV[2] outbox message id (the expected head)
    ARGV[3] attempts
    ARGV[4] notBefore (ms)
    ARGV[5] conversation id
    ARGV[6] in doubt until (ms), or '' to leave the message's inDoubtUntil as it is
  Output:
    'ok' | 'lost-lock' | 'stale'
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return 'lost-lock'
end
local head = redis.call('LINDEX', KEYS[2], 0)
if not head then
  return 'stale'
end
local message = cjson.decode(head)
if message.id ~= ARGV[2] then
  return 'stale'
end
message.attempts = tonumber(ARGV[3])
if ARGV[6] ~= '' then
  message.inDoubtUntil = tonumber(ARGV[6])
end
redis.call('LSET', KEYS[2], 0, cjson.encode(message))
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
return 'ok'
