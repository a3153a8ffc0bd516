--[[
  A transient send failure, a head in doubt, or a message held back at send time (quiet
  hours): stores the head message's new attempt count (and the marks given) and releases the
  claim, the conversation ready again at notBefore: in the bot-initiated band of the ready set
  (at band + notBefore, behind every answer: see claim-8.lua) when it holds bot-initiated
  messages only.

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
    ARGV[7] in doubt since (ms), or '' to leave its inDoubtSince
    ARGV[8] hold until (ms), or '' to leave its holdUntil
    ARGV[9] the bot-initiated band (ms, storeLimits.botBandMs)
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
if ARGV[7] ~= '' then
  message.inDoubtSince = tonumber(ARGV[7])
end
if ARGV[8] ~= '' then
  message.holdUntil = tonumber(ARGV[8])
end
redis.call('LSET', KEYS[2], 0, cjson.encode(message))
redis.call('DEL', KEYS[1])
local readyAt = tonumber(ARGV[4])
if botInitiatedOnly(KEYS[2]) then
  readyAt = readyAt + tonumber(ARGV[9])
end
redis.call('ZADD', KEYS[3], readyAt, ARGV[5])
return 'ok'
