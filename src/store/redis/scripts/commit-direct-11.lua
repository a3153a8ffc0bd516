--[[
  Commits a direct turn's step (commit-step-17.lua's direct mode) with the conversation's value
  built by the caller (value-after-step.ts), in the usual case only: the value is written whole
  when it is still the one the step was computed on (its write mark unchanged, or the whole
  value the same when it had none). The step's messages go onto the outbox as
  commit-step-17.lua puts them: an idle outbox is handed to the caller's sender (its head
  checked as lib/outbox-head.lua checks it), else made ready unless a claim holds it. Anything
  else answers 'moved' and changes nothing (a moved value, a head to drop, messages held for
  quiet hours in the outbox): the caller commits with commit-step-17.lua, which merges.

  Input:
    KEYS[1] inbox lock
    KEYS[2] mailbox
    KEYS[3] conversation value
    KEYS[4] its transcript list
    KEYS[5] outbox list
    KEYS[6] outbox lock
    KEYS[7] outbox ready set of the partition
    KEYS[8] suppression of the phone
    KEYS[9] recent sends to the phone (the loop guard's count)
    KEYS[10] timers of the partition (zset: conversation id → its earliest due time)
    KEYS[11] counters key prefix (+ counter name)
    ARGV[1] the value the step was computed on ('' for none), or its write mark line alone when
            it has one (`valueIs` in lib/conversation-parts.lua)
    ARGV[2] the value to write
    ARGV[3] its TTL (ms), 0 for none
    ARGV[4] conversation id
    ARGV[5] now (ms)
    ARGV[6] outbox token to hand the outbox over with, or '' to make it ready
    ARGV[7] outbox lease (ms)
    ARGV[8] the earliest timer set sooner than the one it replaced (ms), or ''
    ARGV[9] '1' when no timer is left (the partition's entry goes)
    ARGV[10] ready channel
    ARGV[11] the outbox ready message (`outbox:<partition>`)
    ARGV[12] the counters' TTL (ms) when a change gives none
    ARGV[13] the first message's send-time checks: '' none (an opt-out confirmation), 's' the
             suppression, 'sg' the suppression and its loop guard (ARGV[14] sends within ARGV[15] ms)
    ARGV[14], ARGV[15] the loop guard's max and window (ms)
    ARGV[16] the transcript list's most entries
    ARGV[17] n, transcript entries to move to the list, then n entries
    then m, outbound messages, then m message JSON, in order
    then c, counters to change, then four arguments each: name, field, by, TTL ('': ARGV[12])
  Output:
    {'busy'} (a worker holds the conversation, or events wait) | {'moved'} | {'ok', handed: 1 or 0}
]]
local spills = tonumber(ARGV[17])
local at = 18 + spills
local outbound = tonumber(ARGV[at])
-- Busy, and (with messages to queue) whether the outbox is idle: empty and unclaimed. In the
-- usual case (none of the four keys there) one call answers both.
local present = outbound > 0 and redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[5], KEYS[6]) or 1
local idle = present == 0
if not idle and redis.call('EXISTS', KEYS[1], KEYS[2]) > 0 then
  return {'busy'}
end
-- Not busy, so with messages to queue `present` counts the outbox list and its lock alone: two
-- means a claim holds the outbox (the sender behind: a call less than asking the lock again).
local held = outbound > 0 and present == 2
if not valueIs(KEYS[3], ARGV[1]) then
  return {'moved'}
end
local now = tonumber(ARGV[5])
-- Handed over when the outbox was idle (empty, unclaimed), as commit-step-17.lua hands it.
local handOver = false
if outbound > 0 then
  handOver = idle and ARGV[6] ~= ''
  if handOver and ARGV[13] ~= '' then
    -- The head's checks as lib/outbox-head.lua makes them: a message it would drop goes there.
    if redis.call('EXISTS', KEYS[8]) == 1 then
      return {'moved'}
    end
    if ARGV[13] == 'sg' then
      local oldest = redis.call('LINDEX', KEYS[9], tonumber(ARGV[14]) - 1)
      if oldest and tonumber(oldest) > now - tonumber(ARGV[15]) then
        return {'moved'}
      end
    end
  elseif not idle and not held and redis.call('EXISTS', KEYS[6]) == 0 then
    -- Queued behind messages nobody holds: one held for quiet hours is the merging script's.
    local head = redis.call('LINDEX', KEYS[5], 0)
    if head and string.find(head, '"holdUntil":', 1, true) then
      return {'moved'}
    end
  end
end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('SET', KEYS[3], ARGV[2], 'PX', ttl)
  redis.call('PEXPIRE', KEYS[4], ttl)
else
  redis.call('SET', KEYS[3], ARGV[2])
end
if spills > 0 then
  redis.call('RPUSH', KEYS[4], unpack(ARGV, 18, 17 + spills))
  redis.call('LTRIM', KEYS[4], -tonumber(ARGV[16]), -1)
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[4], ttl)
  else
    redis.call('PERSIST', KEYS[4])
  end
end
if ARGV[8] ~= '' then
  if redis.call('ZADD', KEYS[10], 'LT', 'CH', ARGV[8], ARGV[4]) == 1 then
    redis.call('PUBLISH', ARGV[10], 'timers:' .. string.match(ARGV[11], '(%d+)$') .. ':' .. ARGV[8])
  end
elseif ARGV[9] == '1' then
  redis.call('ZREM', KEYS[10], ARGV[4])
end
local counters = at + outbound + 1
changeCounterArgs(KEYS[11], ARGV, counters + 1, tonumber(ARGV[counters]), ARGV[12])
local handed = 0
if outbound > 0 then
  redis.call('RPUSH', KEYS[5], unpack(ARGV, at + 1, at + outbound))
  if handOver then
    -- No TTL: an outbox lock stays until released (see claim-8.lua).
    redis.call('HSET', KEYS[6], 'token', ARGV[6], 'lease', ARGV[7])
    redis.call('ZADD', KEYS[7], now + tonumber(ARGV[7]), ARGV[4])
    handed = 1
  elseif redis.call('ZADD', KEYS[7], 'NX', 'CH', now, ARGV[4]) == 1 then
    -- Announced only when this made the outbox ready: a holder goes on to it after its send.
    redis.call('PUBLISH', ARGV[10], ARGV[11])
  end
end
return {'ok', handed}
