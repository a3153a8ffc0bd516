--[[
  Moves the due timers of a partition, soonest first and at most `limit` of them, into their
  conversations' mailboxes: each becomes a TimerEvent at the tail of the mailbox (ordered like
  any other event), its conversation becomes ready unless it already has a ready time (a
  claimed one keeps its lease), and the timer is deleted, so it fires once however many
  processes call this. Announces the partition's inbox when anything moved.

  Input:
    KEYS[1] timers of the partition (zset: timer id → due time)
    KEYS[2] timer key prefix (+ timer id)
    KEYS[3] conversation timers key prefix (+ conversation id)
    KEYS[4] mailbox key prefix (+ conversation id)
    KEYS[5] inbox ready set of the partition
    ARGV[1] now (ms), also the events' receivedAt
    ARGV[2] limit
    ARGV[3] ready channel
    ARGV[4] inbox ready message
  Output:
    the number of timers moved
]]
local now = ARGV[1]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
if #due == 0 then
  return 0
end
-- The due timers are the lowest ranks of the zset, so they go in one command.
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, #due - 1)

local moved = 0
for _, id in ipairs(due) do
  local key = KEYS[2] .. id
  -- The event JSON less receivedAt and '}', starting {"location":"…","phone":"…" (see
  -- timer-event-json.ts). It is written with the zset entry in one script, so it is there.
  local event = redis.call('GET', key)
  local location, phone
  if event then
    location, phone = string.match(event, '^{"location":"([%w_%-]+)","phone":"(%d+)"')
  end
  if location then
    local conv = location .. ':' .. phone
    redis.call('RPUSH', KEYS[4] .. conv, event .. ',"receivedAt":' .. now .. '}')
    redis.call('ZADD', KEYS[5], 'NX', now, conv)
    redis.call('ZREM', KEYS[3] .. conv, id)
    moved = moved + 1
  end
  redis.call('DEL', key)
end

if moved > 0 then
  redis.call('PUBLISH', ARGV[3], ARGV[4])
end
return moved
