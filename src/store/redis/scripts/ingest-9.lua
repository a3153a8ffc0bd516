--[[
  Takes in the items of one notification that belong to one partition, each at most once: an
  event already in its conversation's mailbox or recent applied log is not taken again, and a
  status moves its record at most once: status items move their message record forward only (and are pushed only
  when it moved); every pushed event goes onto its conversation's mailbox in ARGV order, and
  the conversation becomes ready unless it already has a ready time (a claimed one keeps its
  lease; its release re-readies it).

  A status that moved a message record replyflow has not yet recorded as sent (no `sent`
  field: the status overtook the answer to POST /sms) is not pushed: it is appended to the
  sms's early status list, which `recordSent` moves into the mailbox with the record's run.
  Its body, when given, goes into the conversation's unrecorded sends (body → sms id): should
  the sender that made the request have died before recording it, the claim that takes its
  outbox over finds the sms id there instead of sending the message again (see claim-8.lua).
  When the conversation's outbox head has that body and is in doubt (`inDoubtSince` or
  `inDoubtUntil`: a send of it may have reached the service), the status is of that send: the
  reply says so (`heard`), and the caller keeps the time for the location, so that the other
  messages in doubt wait while the service keeps reporting such sends.

  The partition is announced when this call made a conversation ready and left it to any
  worker, unless other conversations were already due there (a backlog: see below).

  With a lease given, a conversation this call made ready (it had no ready time: nobody holds
  it, nothing waits) and that has no lock is claimed here, up to `max` of them, as claim-8.lua
  would, for the worker of the caller's process: token `<token base>:<n>`, ready time
  now + lease, and not announced. Its first view comes back with it.

  Input:
    KEYS[1] inbox ready set of the partition
    KEYS[2] mailbox key prefix (+ conversation id)
    KEYS[3] message record key prefix (+ sms id)
    KEYS[4] early status list key prefix (+ sms id)
    KEYS[5] unrecorded sends key prefix (+ conversation id)
    KEYS[6] inbox lock key prefix (+ conversation id)
    KEYS[7] conversation record key prefix (+ conversation id)
    KEYS[8] the partition's records of unknown sms (zset: sms id → time)
    KEYS[9] outbox key prefix (+ conversation id)
    ARGV[1] now (ms)
    ARGV[2] the applied log's window (ms): an older log knows nothing
    ARGV[3] ready channel
    ARGV[4] ready message
    ARGV[5] early status list TTL (ms), also the unrecorded sends' TTL
    ARGV[6] inbox lease (ms) of the claims to make here; 0 makes none
    ARGV[7] most claims to make
    ARGV[8] token base of those claims
    ARGV[9] TTL (ms) of a message record made by a status of an unknown sms
    ARGV[10] most such records kept in the partition (past it, the oldest go)
    ARGV[11] most early status events kept per sms
    ARGV[12] most bodies kept in a conversation's unrecorded sends
    ARGV[13..] six per item: conversation id, event JSON, sms id ('' unless a status item),
              status rank, message record JSON (created as is, or merged into the existing
              one), the sms body as the service reported it ('' when unknown)
  Output:
    {1, 0, 0} when every item was taken in before (a redelivery), else {0, events pushed,
    heard (1 when a status of the send of a head in doubt was taken in, else 0), then five per
    claim made: conversation id, token, record JSON, head event JSON, origin stored message
    record ('' for each one missing)} (statuses kept in an early status list are not counted)
]]
-- Whether an event (its id) was taken in before: it waits in its conversation's mailbox, or
-- its conversation's applied log (recent: within ARGV[2]) has it. The service redelivers for
-- minutes, so a bounded log covers its retries; no id is kept per notification.
-- The conversations' values less their transcript lines, as read in this call (false: none),
-- by conversation id: a claim's first view reads the value known() read, unless a status item
-- rewrote it since (dropped from here then).
local heads = {}
local function headOf(id)
  local head = heads[id]
  if head == nil then
    head = conversationHead(KEYS[7] .. id) or false
    heads[id] = head
  end
  return head or nil
end
local function known(id, eventId)
  -- The applied log, the value's second line.
  local head = headOf(id)
  local applied = head and string.match(head, '^%d+\n([^\n]*)\n')
  -- An id of plain characters is written in the log as it is, between quotes: when it is not
  -- there, the log is not decoded (most events are new; each decoded id is a Lua string).
  if applied and applied ~= '' and (not plainId(eventId) or
      string.find(applied, '"' .. eventId .. '"', 1, true)) then
    local log = cjson.decode(applied)
    if tonumber(ARGV[1]) - log[1] <= tonumber(ARGV[2]) then
      for i = 2, #log do
        if log[i] == eventId then
          return true
        end
      end
    end
  end
  -- A plain id is found as it is in the event JSON; decode only what may be it.
  local plain = not string.find(eventId, '[%c"\\]')
  for _, queued in ipairs(redis.call('LRANGE', KEYS[2] .. id, 0, -1)) do
    if (not plain or string.find(queued, eventId, 1, true)) and cjson.decode(queued).id == eventId then
      return true
    end
  end
  return false
end

local items, taken = 0, 0

local lease = tonumber(ARGV[6])
local max = tonumber(ARGV[7])
local claimed = {}
-- Conversations this call made ready and left for any worker to claim.
local fresh = 0
local pushed = 0
local heard = 0
for i = 13, #ARGV, 6 do
  local push = true
  local smsId = ARGV[i + 2]
  items = items + 1
  -- The driver writes an event's id first: read there when it holds no escape, else decoded.
  if smsId == '' and known(ARGV[i], eventStart(ARGV[i + 1]) or cjson.decode(ARGV[i + 1]).id) then
    push = false
    taken = taken + 1
  elseif smsId ~= '' then
    local key = KEYS[3] .. smsId
    local rank = tonumber(ARGV[i + 3])
    -- A record of the conversation's latest messages lives in its value's messages line.
    local conversationKey = KEYS[7] .. ARGV[i]
    local seq, applied, timers, messages, record, transcript =
      conversationParts(redis.call('GET', conversationKey))
    -- Read as text when the sms id is plain (lib/messages-line.lua): only its entry is decoded.
    local found, readAsText = nil, false
    if plainId(smsId) then
      local from, last, entryRank, entrySent, entryRecord = messagesEntryAt(messages, smsId)
      if from ~= false then
        readAsText = true
        if from then
          found = {from = from, last = last, rank = entryRank, sent = entrySent, record = entryRecord}
        end
      end
    end
    local entries, at = nil, nil
    if not readAsText and messages and messages ~= '' then
      entries = cjson.decode(messages)
      for index, entry in ipairs(entries) do
        if entry[1] == smsId then
          at = index
        end
      end
    end
    local current, sent, existing = nil, nil, nil
    if found then
      current = found.rank
    elseif at then
      current = entries[at][2]
    else
      current, sent, existing = messageParts(redis.call('GET', key))
    end
    if current and current >= rank then
      push = false
    elseif found or at then
      -- The status's fields go into the record (not `v` nor the location: the conversation's).
      local stored = found and cjson.decode(found.record) or entries[at][4]
      for field, value in pairs(cjson.decode(ARGV[i + 4])) do
        if field ~= 'v' and field ~= 'l' then
          stored[field] = value
        end
      end
      local line
      if found then
        line = string.sub(messages, 1, found.from - 1) .. '["' .. smsId .. '",' .. rank .. ',' ..
          found.sent .. ',' .. cjson.encode(stored) .. ']' .. string.sub(messages, found.last + 1)
      else
        entries[at][2] = rank
        line = cjson.encode(entries)
      end
      redis.call('SET', conversationKey,
        conversationValue(seq, applied, timers, line, record, transcript), 'KEEPTTL')
      heads[ARGV[i]] = nil
    else
      local json = ARGV[i + 4]
      if existing then
        local record = cjson.decode(existing)
        for field, value in pairs(cjson.decode(json)) do
          record[field] = value
        end
        json = cjson.encode(record)
        redis.call('SET', key, rank .. (sent and '1' or '0') .. json, 'KEEPTTL')
      else
        -- An sms nobody recorded (yet): kept briefly, and at most a cap of them per partition.
        redis.call('SET', key, rank .. '0' .. json, 'PX', ARGV[9])
        redis.call('ZADD', KEYS[8], ARGV[1], smsId)
        -- The index forgets what the records' TTL has taken, and holds no more than the cap.
        redis.call('ZREMRANGEBYSCORE', KEYS[8], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[9]))
        if redis.call('ZCARD', KEYS[8]) > tonumber(ARGV[10]) then
          local oldest = redis.call('ZPOPMIN', KEYS[8])[1]
          local _, recorded = messageParts(redis.call('GET', KEYS[3] .. oldest))
          if not recorded then
            redis.call('DEL', KEYS[3] .. oldest, KEYS[4] .. oldest)
          end
        end
      end
      if not sent then
        local early = KEYS[4] .. smsId
        redis.call('RPUSH', early, ARGV[i + 1])
        redis.call('LTRIM', early, -tonumber(ARGV[11]), -1)
        redis.call('PEXPIRE', early, ARGV[5])
        if ARGV[i + 5] ~= '' then
          local unrecorded = KEYS[5] .. ARGV[i]
          if redis.call('HLEN', unrecorded) < tonumber(ARGV[12]) then
            redis.call('HSET', unrecorded, ARGV[i + 5], smsId)
          end
          redis.call('PEXPIRE', unrecorded, ARGV[5])
          -- The status of a send of the outbox's head in doubt (create-sender.ts, waitInDoubt)?
          local head = redis.call('LINDEX', KEYS[9] .. ARGV[i], 0)
          if head and string.find(head, '"inDoubt', 1, true) then
            local message = cjson.decode(head)
            if (message.inDoubtSince or message.inDoubtUntil) and message.body == ARGV[i + 5] then
              heard = 1
            end
          end
        end
        push = false
      end
    end
  end
  if push then
    local id = ARGV[i]
    redis.call('RPUSH', KEYS[2] .. id, ARGV[i + 1])
    local madeReady = redis.call('ZADD', KEYS[1], 'NX', ARGV[1], id) == 1
    pushed = pushed + 1
    local lock = KEYS[6] .. id
    if madeReady and lease > 0 and #claimed < max and redis.call('EXISTS', lock) == 0 then
      local token = ARGV[8] .. ':' .. #claimed
      redis.call('HSET', lock, 'token', token, 'lease', lease)
      redis.call('PEXPIRE', lock, lease)
      redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + lease, id)
      claimed[#claimed + 1] = {id, token}
    elseif madeReady then
      fresh = fresh + 1
    end
  end
end

-- Announced only when nothing else was due in the partition: conversations already due were
-- announced when they became ready, and the workers that have not claimed them yet are busy
-- (a backlog) and will scan the partition again; the message would only cost every process a
-- read. (A lost announcement is left to the consumers' safety sweep, which reads one partition's
-- next ready time a second and every partition once it finds work nobody announced.)
if fresh > 0 and redis.call('ZCOUNT', KEYS[1], '-inf', ARGV[1]) <= fresh then
  redis.call('PUBLISH', ARGV[3], ARGV[4])
end
-- Every item taken in before: the notification is a duplicate.
if items > 0 and taken == items then
  return {1, 0, 0}
end
local reply = {0, pushed, heard}
-- The first view of each claim, as claim-8.lua reads it, once every item is in.
for _, claim in ipairs(claimed) do
  local id = claim[1]
  local head = redis.call('LINDEX', KEYS[2] .. id, 0) or ''
  local value = headOf(id)
  local origin = originOf(head, value, KEYS[3])
  reply[#reply + 1] = id
  reply[#reply + 1] = claim[2]
  reply[#reply + 1] = value or ''
  reply[#reply + 1] = head
  reply[#reply + 1] = origin
end
return reply
