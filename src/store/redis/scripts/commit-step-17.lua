--[[
  Commits one step of a conversation: checks the lock token (fencing against a claimer whose
  lease ran out), the mailbox head and the record's seq; then writes the record, pops the
  head, appends the outbound messages (and makes the outbox ready), writes and deletes the
  step's timers, logs the event id as applied, and reads the next view. When the pop left the
  mailbox empty, releases the claim as release-3.lua would (deletes the lock, drops the
  conversation from the ready set): the drain is over, and that saves the worker a call.
  Otherwise extends the lease. When the step queues messages onto an outbox that was empty
  and unclaimed and an outbox token is given, claims that outbox as claim-9.lua would (lock,
  ready time now + lease), without announcing it, and answers with its first view: the
  process's own sender takes it from there without a claim of its own.

  Input:
    KEYS[1] inbox lock
    KEYS[2] mailbox
    KEYS[3] conversation record
    KEYS[4] applied log
    KEYS[5] inbox ready set of the partition
    KEYS[6] outbox list
    KEYS[7] outbox ready set of the partition
    KEYS[8] message record key prefix (+ sms id)
    KEYS[9] timers of the partition (zset)
    KEYS[10] timer key prefix (+ timer id)
    KEYS[11] timers of the conversation (zset)
    KEYS[12] outbox lock
    KEYS[13] sent guard key prefix (+ outbox message id)
    KEYS[14] suppression of the conversation's phone
    KEYS[15] recent sends to the phone (the loop guard's count)
    KEYS[16] result key prefix (+ run id), in the partition
    KEYS[17] results index key prefix (+ bot id), in the partition
    ARGV[1] token
    ARGV[2] event id (the expected head)
    ARGV[3] expected seq (0 when there is no record)
    ARGV[4] new record JSON, or '' to leave the record as it is
    ARGV[5] new record seq
    ARGV[6] now (ms)
    ARGV[7] applied log cap
    ARGV[8] conversation id
    ARGV[9] ready channel
    ARGV[10] outbox ready message
    ARGV[11] outbox token to claim the outbox with, or '' not to
    ARGV[12] outbox lease (ms)
    ARGV[13] n, the number of outbound messages
    ARGV[14..13+n] outbound message JSON, in order
    ARGV[14+n] m, the number of timers to set
    then three per timer to set (replacing one with the same id): id, due time (ms), and its
    TimerEvent JSON less receivedAt and the closing brace (`timer-event-json.ts`)
    then the ids of the timers to cancel (only the conversation's own are deleted)
    The last six ARGV, after those (read from the end): the suppression change ('add',
    'remove' or ''), its JSON when added, the dropped record TTL (s), the most messages to
    drop from the claimed outbox's head, the results to write: a JSON array of {runId,
    botId, score, json} (each result's JSON, kept as it is, and its index score), and '1' when
    a new outbound message is not held for quiet hours (it may pass the held ones: an outbox
    nobody holds whose head is held is made ready now rather than when the hold ends).
  Output:
    {'lost-lock'} | {'stale'} |
    {'ok', record JSON, next head JSON, origin JSON, released, outbox head JSON, its sent guard,
    dropped JSON} ('' = none; released: 1 or 0; the outbox head and dropped JSON only when this
    call claimed the outbox, read as read-outbox-5.lua reads it, with '' as head when all of it
    was dropped; the record JSON only when ARGV[4] left the
    record as it was: otherwise the caller has it)
]]
local argc = #ARGV - 6
local suppression, suppressionJson = ARGV[argc + 1], ARGV[argc + 2]
local droppedTtl, dropLimit = tonumber(ARGV[argc + 3]), tonumber(ARGV[argc + 4])
local results = ARGV[argc + 5]
local sendsNow = ARGV[argc + 6] == '1'
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return {'lost-lock'}
end
local head = redis.call('LINDEX', KEYS[2], 0)
if not head or cjson.decode(head).id ~= ARGV[2] then
  return {'stale'}
end
if tonumber(redis.call('HGET', KEYS[3], 'seq') or '0') ~= tonumber(ARGV[3]) then
  return {'stale'}
end

if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[3], 'seq', ARGV[5], 'json', ARGV[4])
end
redis.call('LPOP', KEYS[2])
if results ~= '' then
  for _, result in ipairs(cjson.decode(results)) do
    redis.call('SET', KEYS[16] .. result.runId, result.json)
    redis.call('ZADD', KEYS[17] .. result.botId, result.score, result.runId)
  end
end
-- Before the outbox is read: an opt-out's own confirmation goes out, nothing else does.
if suppression == 'add' then
  redis.call('SET', KEYS[14], suppressionJson)
elseif suppression == 'remove' then
  redis.call('DEL', KEYS[14])
end
local outbound = tonumber(ARGV[13])
local handed, handedSmsId, handedDropped = '', '', {}
if outbound > 0 then
  local wasEmpty = redis.call('LLEN', KEYS[6]) == 0
  redis.call('RPUSH', KEYS[6], unpack(ARGV, 14, 13 + outbound))
  if ARGV[11] ~= '' and wasEmpty and redis.call('EXISTS', KEYS[12]) == 0 then
    local outboxLease = tonumber(ARGV[12])
    -- No TTL: an outbox lock stays until released (see claim-9.lua).
    redis.call('HSET', KEYS[12], 'token', ARGV[11], 'lease', outboxLease)
    redis.call('ZADD', KEYS[7], tonumber(ARGV[6]) + outboxLease, ARGV[8])
    handed = outboxHead(KEYS[6], KEYS[14], KEYS[15], KEYS[8], tonumber(ARGV[6]), handedDropped,
      droppedTtl, dropLimit)
    -- All dropped: the claim is handed over all the same, so the sender logs them and releases.
    if handed ~= '' then
      handedSmsId = redis.call('GET', KEYS[13] .. cjson.decode(handed).id) or ''
    end
  else
    local mode = 'NX'
    if sendsNow and not wasEmpty and redis.call('EXISTS', KEYS[12]) == 0 then
      local first = cjson.decode(redis.call('LINDEX', KEYS[6], 0))
      if first.holdUntil and tonumber(first.holdUntil) > tonumber(ARGV[6]) then
        mode = 'LT'
      end
    end
    redis.call('ZADD', KEYS[7], mode, ARGV[6], ARGV[8])
    redis.call('PUBLISH', ARGV[9], ARGV[10])
  end
end

local at = 14 + outbound
local sets = tonumber(ARGV[at])
for i = at + 1, at + 3 * sets, 3 do
  local id, dueAt = ARGV[i], ARGV[i + 1]
  redis.call('SET', KEYS[10] .. id, ARGV[i + 2])
  redis.call('ZADD', KEYS[9], dueAt, id)
  redis.call('ZADD', KEYS[11], dueAt, id)
end
for i = at + 1 + 3 * sets, argc do
  local id = ARGV[i]
  if redis.call('ZREM', KEYS[11], id) == 1 then
    redis.call('ZREM', KEYS[9], id)
    redis.call('DEL', KEYS[10] .. id)
  end
end

redis.call('RPUSH', KEYS[4], ARGV[2])
redis.call('LTRIM', KEYS[4], -tonumber(ARGV[7]), -1)

local record = ''
if ARGV[4] == '' then
  record = redis.call('HGET', KEYS[3], 'json') or ''
end
local next = redis.call('LINDEX', KEYS[2], 0) or ''
if next == '' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[5], ARGV[8])
  return {'ok', record, '', '', 1, handed, handedSmsId, droppedJson(handedDropped)}
end

local lease = tonumber(redis.call('HGET', KEYS[1], 'lease'))
redis.call('PEXPIRE', KEYS[1], lease)
redis.call('ZADD', KEYS[5], 'XX', tonumber(ARGV[6]) + lease, ARGV[8])

return {'ok', record, next, originOf(next, KEYS[8]), 0, handed, handedSmsId, droppedJson(handedDropped)}
