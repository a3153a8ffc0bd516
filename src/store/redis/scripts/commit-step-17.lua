--[[
  Commits one step of a conversation: checks the lock token (fencing against a claimer whose
  lease ran out), the mailbox head and the record's seq; then writes the record, pops the
  head, appends the outbound messages (and makes the outbox ready), writes and deletes the
  step's timers, logs the event id as applied, and reads the next view. When the pop left the
  mailbox empty, releases the claim as release-3.lua would (deletes the lock, drops the
  conversation from the ready set): the drain is over, and that saves the worker a call.
  Otherwise extends the lease. When the step queues messages onto an outbox that was empty
  and unclaimed and an outbox token is given, claims that outbox as claim-8.lua would (lock,
  ready time now + lease), without announcing it, and answers with its first view: the
  process's own sender takes it from there without a claim of its own.

  Direct (ARGV[1] the empty token, the event's JSON as ARGV[at + 18]): the step of an event that
  never went onto the mailbox (a direct turn, conversation/create-worker.ts). Instead of the
  token and the mailbox head: 'busy' when the conversation has a lock or a mailbox (a worker
  holds it, or events wait: they go first), 'duplicate' when its applied log has the event (a
  redelivery of a turn committed before). Nothing is popped, no claim extended or released, and
  no next view read.

  Input:
    KEYS[1] inbox lock
    KEYS[2] mailbox
    KEYS[3] conversation record (one string: conversation-value.ts)
    KEYS[4] inbox ready set of the partition
    KEYS[5] outbox list
    KEYS[6] outbox ready set of the partition
    KEYS[7] message record key prefix (+ sms id)
    KEYS[8] timers of the partition (zset: conversation id → its earliest due time)
    KEYS[9] outbox lock
    KEYS[10] suppression of the conversation's phone
    KEYS[11] recent sends to the phone (the loop guard's count)
    KEYS[12] result key prefix (+ run id), in the partition
    KEYS[13] results index key prefix (+ bot id), in the partition
    KEYS[14] counters key prefix (+ counter name), in the partition
    KEYS[15] campaign recipients key prefix (+ `<campaign id>:<chunk>`), in the partition
    KEYS[16] outbound events of the partition (hash: id → event value, event-value.ts)
    KEYS[17] their due times (zset: id → due, ms)
    ARGV[1] token
    ARGV[2] event id (the expected head)
    ARGV[3] expected seq (0 when there is no record)
    ARGV[4] new record JSON (conversationBody), or '' to leave the record as it is
    ARGV[5] new record seq
    ARGV[6] now (ms)
    ARGV[7] applied log cap
    ARGV[8] conversation id
    ARGV[9] ready channel (also told "timers:<partition>:<due>" when the timer entry moved earlier)
    ARGV[10] outbox ready message (`outbox:<partition>`)
    ARGV[11] outbox token to claim the outbox with, or '' not to
    ARGV[12] outbox lease (ms)
    ARGV[13] n, the number of outbound messages
    ARGV[14..13+n] outbound message JSON, in order
    then, from ARGV[14+n] on:
    +0 timers to set: JSON [[send id, due (ms), (event JSON)], …] of the record's run, or ''
       (a timer with the same send id is replaced: new due time, new event)
    +1 timers to cancel: JSON [timer id, …] ('<run id>:<send id>'; only the run's own go), or ''
    +2 the record's TTL (ms) once written, 0 for none (an active conversation is kept)
    +3 the applied log's window (ms): a log whose last entry is older starts again
    +4 the suppression change ('add', 'remove' or ''), +5 its JSON when added
    +6 the dropped record TTL (s), +7 the most messages to drop from the claimed outbox's head
    +8 the results to write: a JSON array of {runId, botId, score, json}, or ''
    +9 their TTL (ms)
    +10 '1' when a new outbound message is not held for quiet hours (it may pass the held ones:
        an outbox nobody holds whose head is held is made ready now rather than when the hold
        ends)
    +11 counters to change: JSON [[counter name, field, by, (TTL ms: 0 none)], …], or ''
        (lib/change-counters.lua)
    +12 the campaign recipient whose start the step did not start: JSON {k: '<campaign id>:<chunk>',
        c: its counters' name, r: row, v: revision, s: its new state, why: reason}, or '' (changed
        only when it is still 'started' at that revision)
    +13 '1' when the step starts a conversation: refused ('suppressed'), changing nothing, when
        the phone is on the suppression list (KEYS[10] exists)
    +14 the counters' TTL (ms) when a change gives none: kept for the retention from their
        last change
    +15 the state path after the step, as a JSON string, when the step writes a record; or ''.
        With a reply event, its message goes to the value's transcript line (its receivedAt,
        body and this state): `i[<at>,<body>,<state>]`
    +16 the most messages the transcript keeps (the oldest go; an outbox message this call
        drops goes to it too)
    +17 outbound events to queue, due now: JSON [[id, event value], …], or '' (an id already
        queued is left as it is)
    +18 direct: the event's JSON (mailboxEventJson); absent otherwise
  Output:
    {'lost-lock'} | {'stale'} | {'suppressed'} | direct: {'busy'} | {'duplicate'} |
    {'ok', record value, next head JSON, origin JSON, released, outbox head JSON, its sent
    guard, dropped JSON} ('' = none; released: 1 or 0; the outbox head and dropped JSON only
    when this call claimed the outbox, read as read-outbox-7.lua reads it, with '' as head when
    all of it was dropped; the record value, as stored less its transcript line, only when
    ARGV[4] left the record as it was: otherwise the caller has it)

  Timers: the conversation's pending timers live in its value's timers line; the partition's
  zset holds one entry per conversation, at or before its earliest pending due time. It moves
  earlier (ZADD LT) only when this commit sets a timer earlier than the one it replaces, and
  goes when none is left; claim-due-timers-4.lua moves it later as timers fire. The expiry,
  set again by every step at a later time, thus costs no zset write per turn.
]]
local at = 14 + tonumber(ARGV[13])
local setJson, cancelJson = ARGV[at], ARGV[at + 1]
local recordTtl, appliedWindow = tonumber(ARGV[at + 2]), tonumber(ARGV[at + 3])
local suppression, suppressionJson = ARGV[at + 4], ARGV[at + 5]
local droppedTtl, dropLimit = tonumber(ARGV[at + 6]), tonumber(ARGV[at + 7])
local results, resultsTtl = ARGV[at + 8], ARGV[at + 9]
local sendsNow = ARGV[at + 10] == '1'
local counters, recipient = ARGV[at + 11], ARGV[at + 12]
local unlessSuppressed = ARGV[at + 13] == '1'
local countersTtl = tonumber(ARGV[at + 14])
local stateAfter, transcriptCap = ARGV[at + 15], tonumber(ARGV[at + 16])
local outboundEvents = ARGV[at + 17]
local now = tonumber(ARGV[6])
local direct = ARGV[1] == ''
local head
if direct then
  if redis.call('EXISTS', KEYS[1], KEYS[2]) > 0 then
    return {'busy'}
  end
  head = ARGV[at + 18]
else
  if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
    return {'lost-lock'}
  end
  head = redis.call('LINDEX', KEYS[2], 0)
  if not head then
    return {'stale'}
  end
end
-- Read off the event's start as the driver writes it (lib/event-start.lua), else decoded.
local eventId, kind, receivedAt = eventStart(head)
local event = nil
if not eventId then
  event = cjson.decode(head)
  eventId, kind, receivedAt = event.id, event.kind, event.receivedAt
end
if eventId ~= ARGV[2] then
  return {'stale'}
end
local stored = redis.call('GET', KEYS[3])
local seq, applied, timers, messages, record, transcript = conversationParts(stored)
local hadTimers = timers ~= nil and timers ~= ''
-- A value may hold timers and no record (a step that set timers before any record): '' body.
local hasRecord = record ~= nil and record ~= ''
-- A direct turn's event may have been committed before (the service redelivers a notification
-- it did not hear answered): the applied log knows it, as ingest-9.lua's dedupe check reads it.
if direct and applied and applied ~= '' and (not plainId(eventId) or
    string.find(applied, '"' .. eventId .. '"', 1, true)) then
  local log = cjson.decode(applied)
  if now - log[1] <= appliedWindow then
    for i = 2, #log do
      if log[i] == eventId then
        return {'duplicate'}
      end
    end
  end
end
if tonumber(seq or '0') ~= tonumber(ARGV[3]) then
  return {'stale'}
end
-- A start to an opted-out phone (an import, or a keyword) starts nothing: the engine runs the
-- step again knowing it. Only a start asks, so a reply's step reads nothing more.
if unlessSuppressed and redis.call('EXISTS', KEYS[10]) == 1 then
  return {'suppressed'}
end

-- The pending timers, merged with this step's. An entry names its run when it is not the
-- record's, so a new run's record leaves an earlier run's timers theirs.
local storedRunId = hasRecord and runIdOf(record) or nil
local runId = ARGV[4] ~= '' and runIdOf(ARGV[4]) or storedRunId
local pending = {}
local timersChanged = false
if hadTimers then
  pending = cjson.decode(timers)
  if storedRunId ~= runId then
    for _, entry in ipairs(pending) do
      if not entry[4] then
        entry[3] = entry[3] or false
        entry[4] = storedRunId
      end
    end
    timersChanged = true
  end
end
local armAt = nil
if cancelJson ~= '' then
  local cancelled = {}
  for _, id in ipairs(cjson.decode(cancelJson)) do
    cancelled[id] = true
  end
  local kept = {}
  for _, entry in ipairs(pending) do
    if cancelled[(entry[4] or runId or '') .. ':' .. entry[1]] then
      timersChanged = true
    else
      kept[#kept + 1] = entry
    end
  end
  pending = kept
end
if setJson ~= '' then
  for _, entry in ipairs(cjson.decode(setJson)) do
    local replaced = nil
    for i, old in ipairs(pending) do
      if old[1] == entry[1] and (old[4] or runId) == (entry[4] or runId) then
        replaced = i
        break
      end
    end
    if not replaced or entry[2] < pending[replaced][2] then
      armAt = math.min(armAt or entry[2], entry[2])
    end
    pending[replaced or (#pending + 1)] = entry
    timersChanged = true
  end
end
if timersChanged then
  timers = timersLine(pending)
end

-- The applied log, bounded by count and by time: it is what knows a redelivered event once
-- applied (ingest-9.lua). A status is not logged: a redelivered one never reaches a mailbox
-- twice (it must move its message record forward).
-- Events of no record are logged too (in a value kept for the log's window): a redelivery of
-- any event but a status is known by this log or the mailbox (ingest-9.lua).
local logged = kind ~= 'status'
if logged then
  local log = (applied and applied ~= '') and cjson.decode(applied) or nil
  if not log or now - log[1] > appliedWindow then
    log = {now}
  end
  log[1] = now
  log[#log + 1] = ARGV[2]
  local cap = tonumber(ARGV[7])
  while #log - 1 > cap do
    table.remove(log, 2)
  end
  applied = cjson.encode(log)
end

if ARGV[4] ~= '' then
  -- The reply's message in the transcript, with the state the step left (no decoding: a line
  -- of entries cut by tabs).
  if kind == 'reply' and stateAfter ~= '' then
    local body = replyBodyJson(head) or cjson.encode((event or cjson.decode(head)).body)
    transcript = transcriptWith(transcript, 'i[' .. string.format('%.0f', receivedAt) .. ',' ..
      body .. ',' .. stateAfter .. ']', transcriptCap)
  end
  local value = conversationValue(ARGV[5], applied, timers, messages, ARGV[4], transcript)
  if recordTtl > 0 then
    redis.call('SET', KEYS[3], value, 'PX', recordTtl)
    -- The transcript's older entries go with the value.
    redis.call('PEXPIRE', transcriptKeyOf(KEYS[3]), recordTtl)
  else
    redis.call('SET', KEYS[3], value)
  end
  spillTranscript(KEYS[3], transcript, transcriptCap)
elseif logged or timersChanged then
  stored = conversationValue(seq, applied, timers, messages, record, transcript)
  if seq or #pending > 0 then
    redis.call('SET', KEYS[3], stored, 'KEEPTTL')
  else
    redis.call('SET', KEYS[3], stored, 'PX', appliedWindow)
  end
end
if armAt and #pending > 0 then
  -- Moved earlier (or added): every process's scheduler hears of it ("timers:<p>:<due>").
  if redis.call('ZADD', KEYS[8], 'LT', 'CH', armAt, ARGV[8]) == 1 then
    redis.call('PUBLISH', ARGV[9], 'timers:' .. string.match(ARGV[10], '(%d+)$') .. ':' ..
      string.format('%.0f', armAt))
  end
elseif #pending == 0 and hadTimers then
  redis.call('ZREM', KEYS[8], ARGV[8])
end
if not direct then
  redis.call('LPOP', KEYS[2])
end
if results ~= '' then
  for _, result in ipairs(cjson.decode(results)) do
    redis.call('SET', KEYS[12] .. result.runId, result.json, 'PX', resultsTtl)
    redis.call('ZADD', KEYS[13] .. result.botId, result.score, result.runId)
    -- The index forgets what the results' TTL has taken (scored by end, or start, time).
    redis.call('ZREMRANGEBYSCORE', KEYS[13] .. result.botId, '-inf', now - tonumber(resultsTtl))
  end
end
-- Kept for the retention from their last change unless they say otherwise: a finished
-- campaign's funnel goes too.
changeCounters(KEYS[14], counters, countersTtl)
if outboundEvents ~= '' then
  -- Each value is a string cjson leaves as it is: the event's JSON is never decoded here.
  for _, entry in ipairs(cjson.decode(outboundEvents)) do
    if redis.call('HSETNX', KEYS[16], entry[1], entry[2]) == 1 then
      redis.call('ZADD', KEYS[17], now, entry[1])
    end
  end
end
if recipient ~= '' then
  local change = cjson.decode(recipient)
  local chunkKey = KEYS[15] .. change.k
  local value = redis.call('HGET', chunkKey, change.r)
  if value then
    local header, input = recipientParts(value)
    if header.s == 'started' and (header.v or 0) == change.v then
      local from = recipientField(header)
      header.s, header.r = change.s, change.why
      redis.call('HSET', chunkKey, change.r, recipientValue(header, input))
      moveRecipientCount(KEYS[14] .. change.c, from, recipientField(header))
    end
  end
end
-- Before the outbox is read: an opt-out's own confirmation goes out, nothing else does.
if suppression == 'add' then
  redis.call('SET', KEYS[10], suppressionJson)
elseif suppression == 'remove' then
  redis.call('DEL', KEYS[10])
end
local outbound = tonumber(ARGV[13])
local handed, handedSmsId, handedDropped = '', '', {}
if outbound > 0 then
  local wasEmpty = redis.call('LLEN', KEYS[5]) == 0
  redis.call('RPUSH', KEYS[5], unpack(ARGV, 14, 13 + outbound))
  if ARGV[11] ~= '' and wasEmpty and redis.call('EXISTS', KEYS[9]) == 0 then
    local outboxLease = tonumber(ARGV[12])
    -- No TTL: an outbox lock stays until released (see claim-8.lua).
    redis.call('HSET', KEYS[9], 'token', ARGV[11], 'lease', outboxLease)
    redis.call('ZADD', KEYS[6], now + outboxLease, ARGV[8])
    local handedMessage
    handed, handedMessage = outboxHead(KEYS[5], KEYS[10], KEYS[11], KEYS[7], now, handedDropped,
      droppedTtl, dropLimit, KEYS[3], transcriptCap)
    -- All dropped: the claim is handed over all the same, so the sender logs them and releases.
    if handed ~= '' then
      handedSmsId = sentSmsIdIn(messages, handedMessage.id)
    end
  else
    local mode = 'NX'
    if sendsNow and not wasEmpty and redis.call('EXISTS', KEYS[9]) == 0 then
      local first = cjson.decode(redis.call('LINDEX', KEYS[5], 0))
      if first.holdUntil and tonumber(first.holdUntil) > now then
        mode = 'LT'
      end
    end
    -- Announced only when this made the outbox ready sooner (added it, or moved a held one
    -- earlier). An entry left as it was is due later (the sender holding the outbox sends this
    -- message after the one in flight; a hold or a pause has its own wake-up), or is due already
    -- and was announced when it became so: a message then only woke lanes to find nothing.
    if redis.call('ZADD', KEYS[6], mode, 'CH', now, ARGV[8]) == 1 then
      redis.call('PUBLISH', ARGV[9], ARGV[10])
    end
  end
end

if ARGV[4] ~= '' then
  stored = ''
end
if direct then
  return {'ok', withoutTranscript(stored) or '', '', '', 1, handed, handedSmsId,
    droppedJson(handedDropped)}
end
local next = redis.call('LINDEX', KEYS[2], 0) or ''
if next == '' then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[4], ARGV[8])
  return {'ok', withoutTranscript(stored) or '', '', '', 1, handed, handedSmsId,
    droppedJson(handedDropped)}
end

local lease = tonumber(redis.call('HGET', KEYS[1], 'lease'))
redis.call('PEXPIRE', KEYS[1], lease)
redis.call('ZADD', KEYS[4], 'XX', now + lease, ARGV[8])

return {'ok', withoutTranscript(stored) or '', next, originOf(next, conversationHead(KEYS[3]), KEYS[7]), 0, handed, handedSmsId,
  droppedJson(handedDropped)}
