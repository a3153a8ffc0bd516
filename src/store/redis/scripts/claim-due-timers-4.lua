--[[
  Moves the due timers of a partition, soonest first and at most `limit` of them, into their
  conversations' mailboxes: each becomes a TimerEvent at the tail of the mailbox (ordered like
  any other event), its conversation becomes ready unless it already has a ready time (a
  claimed one keeps its lease), and the timer leaves the conversation's pending timers, so it
  fires once however many processes call this. Announces the partition's inbox when anything
  moved.

  The partition's zset holds one entry per conversation, at or before its earliest pending
  timer (commit-step-17.lua). Taken soonest first, each entry fires the conversation's timers
  due by now and not later than the next entry's time (so timers leave in due order across
  conversations), then moves to the conversation's next pending due time, or goes. An entry
  with nothing due (its expiry was pushed later by activity) only moves.

  Input:
    KEYS[1] timers of the partition (zset: conversation id → earliest due time)
    KEYS[2] conversation record key prefix (+ conversation id)
    KEYS[3] mailbox key prefix (+ conversation id)
    KEYS[4] inbox ready set of the partition
    ARGV[1] now (ms), also the events' receivedAt
    ARGV[2] limit
    ARGV[3] ready channel
    ARGV[4] inbox ready message
  Output:
    {moved, more}: the number of timers moved, and 1 when due entries may be left (the call
    stopped at `limit`, or after looking at `limit` + 100 entries)
]]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local moved = 0
local more = 0
for _ = 1, limit + 100 do
  if moved >= limit then
    break
  end
  local first = redis.call('ZRANGE', KEYS[1], 0, 1, 'WITHSCORES')
  local id = first[1]
  if not id or tonumber(first[2]) > now then
    more = -1
    break
  end
  -- Fire no later than the next conversation's entry: timers leave in due order.
  local bound = now
  if first[4] and tonumber(first[4]) < bound then
    bound = tonumber(first[4])
  end
  local key = KEYS[2] .. id
  local seq, applied, timers, messages, record, transcript = conversationParts(redis.call('GET', key))
  local nextDue = nil
  if timers and timers ~= '' then
    local runId = runIdOf(record)
    local fire, pending = {}, {}
    for _, entry in ipairs(cjson.decode(timers)) do
      if entry[2] <= bound then
        fire[#fire + 1] = entry
      else
        pending[#pending + 1] = entry
      end
    end
    table.sort(fire, function(a, b) return a[2] < b[2] end)
    while #fire > limit - moved do
      pending[#pending + 1] = table.remove(fire)
    end
    local location, phone = string.match(id, '^(.*):(%d+)$')
    -- The part every event of this conversation shares, and one RPUSH for all of them.
    local head = '{"location":' .. cjson.encode(location) .. ',"phone":"' .. phone ..
      '","v":1,"id":'
    local events = {}
    for _, entry in ipairs(fire) do
      local sendId, dueAt = entry[1], string.format('%.0f', entry[2])
      local run = entry[4] or runId or ''
      local timerId = run .. ':' .. sendId
      local payload = entry[3]
      if not payload then
        payload = sendId == 'replyflow.expire' and '{"type":"conversation.expire"}'
          or cjson.encode({type = sendId})
      end
      events[#events + 1] = head .. cjson.encode('timer:' .. timerId .. ':' .. dueAt) ..
        ',"kind":"timer","runId":' .. cjson.encode(run) .. ',"timerId":' .. cjson.encode(timerId) ..
        ',"dueAt":' .. dueAt .. ',"event":' .. payload .. ',"receivedAt":' .. ARGV[1] .. '}'
      moved = moved + 1
    end
    if #fire > 0 then
      redis.call('RPUSH', KEYS[3] .. id, unpack(events))
      redis.call('SET', key, conversationValue(seq, applied, timersLine(pending), messages, record, transcript),
        'KEEPTTL')
      redis.call('ZADD', KEYS[4], 'NX', now, id)
    end
    for _, entry in ipairs(pending) do
      if not nextDue or entry[2] < nextDue then
        nextDue = entry[2]
      end
    end
  end
  if nextDue then
    redis.call('ZADD', KEYS[1], nextDue, id)
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
if more == 0 then
  more = 1
else
  more = 0
end
if moved > 0 then
  redis.call('PUBLISH', ARGV[3], ARGV[4])
end
return {moved, more}
