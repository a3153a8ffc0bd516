--[[
  Records a send (record-sent-13.lua) with the conversation's value built by the caller
  (value-after-sent.ts), in the usual case only: the claim holds the outbox, whose head is the
  message sent, no record of the sms exists yet (no status came first), the value is still the
  one the caller built on, and the next message, if any, is one the sender may send as it is
  (lib/outbox-head.lua would drop, move or hold nothing, and no sent guard names it). Then
  writes the value whole, the records its messages line let go and the transcript entries past
  the value's, pops the message, counts it (counters, loop guard), and releases the claim or,
  with a next message, extends its lease and answers that message. Anything else answers
  'moved' and changes nothing: the caller records the send with record-sent-13.lua.

  Input:
    KEYS[1] outbox lock
    KEYS[2] outbox list
    KEYS[3] conversation value
    KEYS[4] its transcript list
    KEYS[5] outbox ready set of the partition
    KEYS[6] message record key of the sms (a status's, made before this)
    KEYS[7] early status list of the sms
    KEYS[8] unrecorded sends of the conversation
    KEYS[9] recent sends to the phone (the loop guard's count)
    KEYS[10] counters key prefix (+ counter name)
    KEYS[11] message record key prefix (+ sms id)
    ARGV[1] token
    ARGV[2] `"id":"<outbox message id>"`, as the message's JSON holds it
    ARGV[3] the value the caller built on, or its write mark line alone when it has one
            (`valueIs` in lib/conversation-parts.lua)
    ARGV[4] the value to write
    ARGV[5] conversation id
    ARGV[6] now (ms)
    ARGV[7] the counters' TTL (ms) when a change gives none
    ARGV[8], ARGV[9] the message's loop guard: max and window (ms), or '' and ''
    ARGV[10] the message records' TTL (s)
    ARGV[11] the transcript list's most entries
    ARGV[12] n, message records let go, then n pairs: sms id, stored record
    then m, transcript entries to move to the list, then m entries
    then c, counters to change, then four arguments each: name, field, by, TTL ('': ARGV[7])
    KEYS[12] suppression of the phone
  Output:
    {'ok', ''} (the claim released: the outbox is empty) | {'ok', next message JSON} | {'moved'}
]]
-- The lease with the token: one call, and the next message's lease below needs no other.
local lock = redis.call('HMGET', KEYS[1], 'token', 'lease')
if lock[1] ~= ARGV[1] then
  return {'moved'}
end
if redis.call('EXISTS', KEYS[6], KEYS[7], KEYS[8]) > 0 then
  return {'moved'}
end
local heads = redis.call('LRANGE', KEYS[2], 0, 1)
if not heads[1] or not string.find(heads[1], ARGV[2], 1, true) then
  return {'moved'}
end
if not valueIs(KEYS[3], ARGV[3]) then
  return {'moved'}
end
local now = tonumber(ARGV[6])
local next = heads[2]
if next then
  -- The next view as lib/outbox-head.lua reads it, when it would answer this head as it is.
  local message = outboxMessageOf(next)
  if type(message.contact) == 'table' or message.holdUntil or message.inDoubtSince or
      message.inDoubtUntil or not message.id or string.find(ARGV[4], '"o":"' .. message.id .. '"', 1, true) then
    return {'moved'}
  end
  if message.compliance ~= 'opt-out' then
    if redis.call('EXISTS', KEYS[12]) == 1 then
      return {'moved'}
    end
    local guard = message.loopGuard
    if type(guard) == 'table' and message.compliance ~= 'help' then
      -- Its guard counts the send recorded here first (when this one is counted).
      local counted = ARGV[8] ~= '' and 1 or 0
      local index = tonumber(guard.max) - 1 - counted
      local oldest = index < 0 and now or tonumber(redis.call('LINDEX', KEYS[9], index) or '')
      if oldest and oldest > now - tonumber(guard.windowMs) then
        return {'moved'}
      end
    end
  end
end
redis.call('SET', KEYS[3], ARGV[4], 'KEEPTTL')
local records = tonumber(ARGV[12])
for i = 13, 12 + 2 * records, 2 do
  redis.call('SET', KEYS[11] .. ARGV[i], ARGV[i + 1], 'EX', ARGV[10])
end
local at = 13 + 2 * records
local entries = tonumber(ARGV[at])
local countersAt = at + entries + 1
if entries > 0 then
  redis.call('RPUSH', KEYS[4], unpack(ARGV, at + 1, at + entries))
  redis.call('LTRIM', KEYS[4], -tonumber(ARGV[11]), -1)
  local ttl = redis.call('PTTL', KEYS[3])
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[4], ttl)
  else
    redis.call('PERSIST', KEYS[4])
  end
end
-- LTRIM rather than LPOP: the message is not copied into Lua again. The last one goes with
-- the claim below (one DEL).
if next then
  redis.call('LTRIM', KEYS[2], 1, -1)
end
changeCounterArgs(KEYS[10], ARGV, countersAt + 1, tonumber(ARGV[countersAt]), ARGV[7])
-- The guard's count is cut back only when it grew past it (a call less a send until then).
if ARGV[8] ~= '' then
  if redis.call('LPUSH', KEYS[9], ARGV[6]) > tonumber(ARGV[8]) then
    redis.call('LTRIM', KEYS[9], 0, tonumber(ARGV[8]) - 1)
  end
  redis.call('PEXPIRE', KEYS[9], ARGV[9])
end
if not next then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('ZREM', KEYS[5], ARGV[5])
  return {'ok', ''}
end
-- The outbox lock has no TTL (see claim-8.lua): the lease is the ready time alone.
redis.call('ZADD', KEYS[5], 'XX', now + tonumber(lock[2]), ARGV[5])
return {'ok', next}
