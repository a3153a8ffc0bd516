--[[
  Records that the service accepted an outbox message: sets its "sent" guard (the first sms
  id wins), writes the message record keeping the status fields of an existing record ranked
  at least as far along, marks it sent, moves the status events that came before it (the
  sms's early status list) onto the conversation's mailbox, in arrival order and with the
  record's runId, and pops the message when it is the head (then drops its body from the
  conversation's unrecorded sends when it points at this sms). These happen even when the token
  lost the lock, because the send did happen; only the lease extension needs the lock. Then
  reads the outbox's next view, as read-outbox-5.lua would. When the outbox is empty after the
  pop and the token holds the lock, releases the claim as release-3.lua would (deletes the
  lock, drops the conversation from the outbox ready set) instead of extending the lease.

  Input:
    KEYS[1] outbox lock
    KEYS[2] outbox list
    KEYS[3] sent guard of the message
    KEYS[4] message record
    KEYS[5] outbox ready set of the partition
    KEYS[6] early status list of the sms
    KEYS[7] inbox list (mailbox) of the conversation
    KEYS[8] inbox ready set of the partition
    KEYS[9] sent guard key prefix (+ outbox message id), for the next view
    KEYS[10] unrecorded sends of the conversation (body → sms id, see ingest-8.lua)
    KEYS[11] suppression of the conversation's phone
    KEYS[12] recent sends to the phone (the loop guard's count)
    KEYS[13] message record key prefix (+ sms id), for the records of dropped messages
    ARGV[1] token
    ARGV[2] outbox message id
    ARGV[3] sms id
    ARGV[4] message record JSON
    ARGV[5] its status rank
    ARGV[6] sent guard TTL (s)
    ARGV[7] JSON array of the status field names
    ARGV[8] now (ms)
    ARGV[9] conversation id
    ARGV[10] ready channel
    ARGV[11] inbox ready message of the partition
    ARGV[12] dropped record TTL (s)
    ARGV[13] most messages to drop in this call
  Output:
    {'ok', next head message JSON, sms id of its sent guard, released, dropped JSON} ('' for
    each one missing; released: 1 or 0) | {'lost-lock'}. The next head is read as
    read-outbox-5.lua reads it. A message sent under a loop guard is counted in KEYS[12]
    (its time, newest first, capped at the guard's max, expiring after its window).
]]
redis.call('SET', KEYS[3], ARGV[3], 'NX', 'EX', ARGV[6])

local rank = tonumber(ARGV[5])
local json = ARGV[4]
local existing = redis.call('HGET', KEYS[4], 'json')
if existing then
  local current = tonumber(redis.call('HGET', KEYS[4], 'rank'))
  local old = cjson.decode(existing)
  local new = cjson.decode(json)
  if current >= rank then
    for _, field in ipairs(cjson.decode(ARGV[7])) do
      if old[field] ~= nil then
        new[field] = old[field]
      end
    end
    rank = current
  else
    for field, value in pairs(new) do
      old[field] = value
    end
    new = old
  end
  json = cjson.encode(new)
end
redis.call('HSET', KEYS[4], 'rank', rank, 'json', json, 'sent', '1')

local early = redis.call('LRANGE', KEYS[6], 0, -1)
if #early > 0 then
  local runId = cjson.decode(json).runId
  for _, eventJson in ipairs(early) do
    local event = cjson.decode(eventJson)
    event.runId = runId
    redis.call('RPUSH', KEYS[7], cjson.encode(event))
  end
  redis.call('DEL', KEYS[6])
  redis.call('ZADD', KEYS[8], 'NX', ARGV[8], ARGV[9])
  redis.call('PUBLISH', ARGV[10], ARGV[11])
end

local head = redis.call('LINDEX', KEYS[2], 0)
if head then
  local message = cjson.decode(head)
  if message.id == ARGV[2] then
    redis.call('LPOP', KEYS[2])
    if type(message.loopGuard) == 'table' then
      redis.call('LPUSH', KEYS[12], ARGV[8])
      redis.call('LTRIM', KEYS[12], 0, tonumber(message.loopGuard.max) - 1)
      redis.call('PEXPIRE', KEYS[12], message.loopGuard.windowMs)
    end
    -- Recorded now: its body must no longer lead a takeover to this sms id.
    if redis.call('HGET', KEYS[10], message.body) == ARGV[3] then
      redis.call('HDEL', KEYS[10], message.body)
    end
  end
end

if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return {'lost-lock'}
end
-- The next view, as read-outbox-5.lua reads it.
local dropped = {}
local nextHead = outboxHead(KEYS[2], KEYS[11], KEYS[12], KEYS[13], tonumber(ARGV[8]), dropped,
  tonumber(ARGV[12]), tonumber(ARGV[13]))
if redis.call('LLEN', KEYS[2]) == 0 then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[5], ARGV[9])
  return {'ok', '', '', 1, droppedJson(dropped)}
end

-- The outbox lock has no TTL (see claim-9.lua): the lease is the ready time alone.
local lease = tonumber(redis.call('HGET', KEYS[1], 'lease'))
redis.call('ZADD', KEYS[5], 'XX', tonumber(ARGV[8]) + lease, ARGV[9])
local smsId = ''
if nextHead ~= '' then
  smsId = redis.call('GET', KEYS[9] .. cjson.decode(nextHead).id) or ''
end
return {'ok', nextHead, smsId, 0, droppedJson(dropped)}
