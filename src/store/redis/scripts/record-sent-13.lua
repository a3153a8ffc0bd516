--[[
  Records that the service accepted an outbox message: writes its message record into the
  conversation's value (its messages line keeps the latest few; the oldest go to keys of their
  own, kept for the retention), keeping the status fields of an existing record ranked at least
  as far along (one a status made before, in the line or in a key of its own, which goes), marks
  it sent, which is also the message's "sent" guard (the first sms id recorded for an outbox
  message wins); moves the status events that came before it (the sms's early status list) onto
  the conversation's mailbox, in arrival order and with the record's runId, and pops the message
  when it is the head (then drops its body from the conversation's unrecorded sends when it
  points at this sms). These happen even when the token lost the lock, because the send did
  happen; only the lease extension needs the lock. Then reads the outbox's next view, as
  read-outbox-7.lua would. When the outbox is empty after the pop and the token holds the lock,
  releases the claim as release-3.lua would (deletes the lock, drops the conversation from the
  outbox ready set) instead of extending the lease. A conversation with no value yet gets one
  holding the record alone, kept for the retention.

  Input:
    KEYS[1] outbox lock
    KEYS[2] outbox list
    KEYS[3] conversation record (its value, conversation-value.ts)
    KEYS[4] message record key of the sms (a record of its own: one a status made first)
    KEYS[5] outbox ready set of the partition
    KEYS[6] early status list of the sms
    KEYS[7] inbox list (mailbox) of the conversation
    KEYS[8] inbox ready set of the partition
    KEYS[9] unrecorded sends of the conversation (body → sms id, see ingest-9.lua)
    KEYS[10] suppression of the conversation's phone
    KEYS[11] recent sends to the phone (the loop guard's count)
    KEYS[12] message record key prefix (+ sms id)
    KEYS[13] counters key prefix (+ counter name), in the partition
    ARGV[1] token
    ARGV[2] outbox message id
    ARGV[3] sms id
    ARGV[4] message record JSON (message-value.ts) less `v` and the location, as the messages
            line holds it
    ARGV[5] its status rank
    ARGV[6] most message records kept in the conversation value
    ARGV[7] JSON array of the status field names (their stored names: message-value.ts)
    ARGV[8] now (ms)
    ARGV[9] conversation id
    ARGV[10] ready channel
    ARGV[11] inbox ready message of the partition
    ARGV[12] dropped record TTL (s)
    ARGV[13] most messages to drop in this call
    ARGV[14] the message record's TTL (s): the retention
    ARGV[15] counters to change when this call pops the message (once per message): JSON
             [[counter name, field, by, (TTL ms: 0 none)], …], or '' (lib/change-counters.lua)
    ARGV[16] their TTL (ms) when a change gives none
    ARGV[17] the most messages the conversation's transcript keeps: an SMS this call pops goes
             to its transcript line as `o[<now>,<sms id>,<body>]` (a contact update does not),
             as does a message the next view drops
  Output:
    {'ok', next head message JSON, sms id of its sent guard, released, dropped JSON} ('' for
    each one missing; released: 1 or 0) | {'lost-lock'}. The next head is read as
    read-outbox-7.lua reads it. A message sent under a loop guard is counted in KEYS[11]
    (its time, newest first, capped at the guard's max, expiring after its window).
]]
local rank = tonumber(ARGV[5])
local json = ARGV[4]
local seq, applied, timers, messages, record, transcript =
  conversationParts(redis.call('GET', KEYS[3]))
-- The message this call pops, when it is the head: once per message, whoever holds the lock.
local head = redis.call('LINDEX', KEYS[2], 0)
local popped = head and outboxMessageOf(head)
if popped and popped.id ~= ARGV[2] then
  popped = nil
end
if popped and popped.contact == nil then
  transcript = transcriptWith(transcript, 'o[' .. ARGV[8] .. ',' .. cjson.encode(ARGV[3]) .. ',' ..
    popped.bodyJson .. ']', tonumber(ARGV[17]))
end
local location = string.match(ARGV[9], '^(.*):%d+$')
-- The usual case, a new sms with no record yet: its entry is added to the line as text
-- (lib/messages-line.lua), no record decoded.
local added, own = nil, nil
if plainId(ARGV[3]) and messagesEntryAt(messages, ARGV[3]) == nil then
  own = redis.call('GET', KEYS[4])
  if not own then
    added = messagesLineWith(messages, '["' .. ARGV[3] .. '",' .. ARGV[5] .. ',1,' .. json .. ']',
      tonumber(ARGV[6]), KEYS[12], location, ARGV[14])
  end
end
local runId = nil
if added then
  messages = added
else
  local entries, at = {}, nil
  if messages and messages ~= '' then
    entries = cjson.decode(messages)
    for index, entry in ipairs(entries) do
      if entry[1] == ARGV[3] then
        at = index
      end
    end
  end
  local current, existing = nil, nil
  if at then
    current, existing = entries[at][2], entries[at][4]
  else
    local _, stored
    current, _, stored = messageParts(own or redis.call('GET', KEYS[4]))
    if stored then
      existing = cjson.decode(stored)
      -- A record a status made first: it lives in the conversation's value from now on.
      redis.call('DEL', KEYS[4])
    end
  end
  local new = cjson.decode(json)
  if existing then
    if current >= rank then
      for _, field in ipairs(cjson.decode(ARGV[7])) do
        if existing[field] ~= nil then
          new[field] = existing[field]
        end
      end
      rank = current
    else
      for field, value in pairs(new) do
        existing[field] = value
      end
      new = existing
    end
  end
  runId = new.u
  -- The message record (message-value.ts), in the conversation's value; the oldest move to
  -- keys of their own.
  local entry = messageEntry(ARGV[3], rank, true, new)
  if at then
    entries[at] = entry
  else
    entries[#entries + 1] = entry
  end
  while #entries > tonumber(ARGV[6]) do
    local oldest = table.remove(entries, 1)
    redis.call('SET', KEYS[12] .. oldest[1], spilledMessage(oldest, location), 'EX', ARGV[14])
  end
  messages = cjson.encode(entries)
end
if seq then
  redis.call('SET', KEYS[3], conversationValue(seq, applied, timers, messages, record, transcript),
    'KEEPTTL')
else
  redis.call('SET', KEYS[3], conversationValue('0', '', '', messages, '', transcript), 'EX',
    ARGV[14])
end
spillTranscript(KEYS[3], transcript, tonumber(ARGV[17]))

local early = redis.call('LRANGE', KEYS[6], 0, -1)
if #early > 0 then
  for _, eventJson in ipairs(early) do
    local event = cjson.decode(eventJson)
    runId = runId or cjson.decode(json).u
    event.runId = runId
    redis.call('RPUSH', KEYS[7], cjson.encode(event))
  end
  redis.call('DEL', KEYS[6])
  redis.call('ZADD', KEYS[8], 'NX', ARGV[8], ARGV[9])
  redis.call('PUBLISH', ARGV[10], ARGV[11])
end

if popped then
  redis.call('LPOP', KEYS[2])
  changeCounters(KEYS[13], ARGV[15], ARGV[16])
  if type(popped.loopGuard) == 'table' then
    if redis.call('LPUSH', KEYS[11], ARGV[8]) > tonumber(popped.loopGuard.max) then
      redis.call('LTRIM', KEYS[11], 0, tonumber(popped.loopGuard.max) - 1)
    end
    redis.call('PEXPIRE', KEYS[11], popped.loopGuard.windowMs)
  end
  -- Recorded now: its body must no longer lead a takeover to this sms id.
  if redis.call('HGET', KEYS[9], popped.body) == ARGV[3] then
    redis.call('HDEL', KEYS[9], popped.body)
  end
end

if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return {'lost-lock'}
end
-- The next view, as read-outbox-7.lua reads it.
local dropped = {}
local nextHead, nextMessage = outboxHead(KEYS[2], KEYS[10], KEYS[11], KEYS[12],
  tonumber(ARGV[8]), dropped, tonumber(ARGV[12]), tonumber(ARGV[13]), KEYS[3],
  tonumber(ARGV[17]))
if redis.call('LLEN', KEYS[2]) == 0 then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[5], ARGV[9])
  return {'ok', '', '', 1, droppedJson(dropped)}
end

-- The outbox lock has no TTL (see claim-8.lua): the lease is the ready time alone.
local lease = tonumber(redis.call('HGET', KEYS[1], 'lease'))
redis.call('ZADD', KEYS[5], 'XX', tonumber(ARGV[8]) + lease, ARGV[9])
local smsId = ''
if nextHead ~= '' then
  smsId = sentSmsIdIn(messages, nextMessage.id)
end
return {'ok', nextHead, smsId, 0, droppedJson(dropped)}
