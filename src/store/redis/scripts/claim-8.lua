--[[
  Claims the conversation of a queue's partition that has been ready longest (or up to `max`
  of them, longest ready first). A ready time
  at or before `now` is also the end of the previous holder's lease (claim and every commit
  push it to now + lease), so a lock still present then is taken over: the old token stops
  holding it. Conversations found with an empty list are dropped from the ready set. Then
  reads, for the claimer, the first view of the conversation, as read-inbox-3.lua (inbox) or
  read-outbox-7.lua (outbox) would.

  Outbox locks have no TTL: they stay until released, so a claim that finds one was left by a
  holder that died (or stalled past its lease) mid-claim, and says so (`taken over`). Its
  head may then have been accepted by the service and never recorded. So when the head is in
  doubt (taken over, or an `inDoubtUntil` set by an earlier takeover) and has no sent guard,
  the claim looks its body up in the conversation's unrecorded sends (statuses the service
  reported for an sms replyflow had not recorded, see ingest-9.lua) and answers with that sms
  id as if it were the sent guard's, unless that sms has been recorded since.

  Answers first (outbox): the ready set has two bands. An outbox waiting with bot-initiated
  messages only (`botInitiated`, lib/bot-initiated-only.lua) belongs at `bot band + its ready
  time`, behind every answer: a claim takes the answers (and the leases that ran out) first, in
  ready order, then the bot-initiated ones, in ready order. A bot-initiated outbox a claim
  finds among the answers (a commit or a release made it ready there) is moved to its band, at
  its own time, and the claim goes on; a deferral puts it there itself (defer-outbound-3.lua).

  Input:
    KEYS[1] ready set of the queue in the partition
    KEYS[2] lock key prefix (+ conversation id)
    KEYS[3] list key prefix (+ conversation id)
    KEYS[4] conversation record key prefix (+ conversation id): the record (inbox), the sent
            guards and message records of its messages line
    KEYS[5] message record key prefix (+ sms id), read for inbox (and for an unrecorded send)
    KEYS[6] unrecorded sends key prefix (+ conversation id), read for outbox
    KEYS[7] suppression key prefix (+ conversation id), read for outbox
    KEYS[8] recent sends key prefix (+ conversation id), read for outbox (the loop guard)
    ARGV[1] now (ms)
    ARGV[2] lease (ms)
    ARGV[3] the new token
    ARGV[4] the queue: 'inbox' | 'outbox'
    ARGV[5] most conversations to claim (default 1); the n-th after the first gets the token
            `<ARGV[3]>:<n>`
    ARGV[6] outbox: dropped record TTL (s)
    ARGV[7] outbox: most messages to drop per conversation
    ARGV[8] outbox: the bot-initiated band (ms, storeLimits.botBandMs)
    ARGV[9] outbox: '1' to claim answers only (the bot-initiated band is left alone)
    ARGV[10] outbox: most messages a transcript keeps (a dropped message goes to it)
  Output:
    '' when nothing is ready; else four per claim, for inbox {conversation id, stored
    conversation value, head event JSON, stored origin message record}, for outbox {conversation id, head message
    JSON, sms id of its sent guard (or of its unrecorded send), taken over: 1 or 0, dropped
    JSON} (five), '' for each one missing. An outbox head is read as read-outbox-7.lua reads
    it: the messages that must not be sent (suppressed phone, loop guard) are dropped first.
]]
local now = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local max = tonumber(ARGV[5] or '1') or 1
local outbox = ARGV[4] == 'outbox'
local botBand = outbox and tonumber(ARGV[8])
local answersOnly = ARGV[9] == '1'

-- The claim's first view, as read-inbox-3.lua / read-outbox-7.lua read it, onto `reply`.
local function view(reply, claimed, takenOver)
  reply[#reply + 1] = claimed
  if outbox then
    local dropped = {}
    local head, message = outboxHead(KEYS[3] .. claimed, KEYS[7] .. claimed, KEYS[8] .. claimed, KEYS[5],
      now, dropped, tonumber(ARGV[6]), tonumber(ARGV[7]), KEYS[4] .. claimed, tonumber(ARGV[10]))
    local smsId = ''
    if head ~= '' then
      smsId = sentSmsIdOf(KEYS[4] .. claimed, message.id)
      if smsId == '' and (takenOver or message.inDoubtUntil) then
        local unrecorded = redis.call('HGET', KEYS[6] .. claimed, message.body)
        if unrecorded then
          local _, recorded = messageParts(messageOf(redis.call('GET', KEYS[4] .. claimed), KEYS[5], unrecorded))
          if not recorded then
            smsId = unrecorded
          end
        end
      end
    end
    reply[#reply + 1] = head
    reply[#reply + 1] = smsId
    reply[#reply + 1] = takenOver and 1 or 0
    reply[#reply + 1] = droppedJson(dropped)
    return
  end
  local head = redis.call('LINDEX', KEYS[3] .. claimed, 0) or ''
  local value = conversationHead(KEYS[4] .. claimed)
  local origin = originOf(head, value, KEYS[5])
  reply[#reply + 1] = value or ''
  reply[#reply + 1] = head
  reply[#reply + 1] = origin
end

local reply = {}
local claims = 0
-- Bounded, so one call never walks a long run of emptied conversations; moves to the
-- bot-initiated band have a bound of their own (each conversation moves once).
local looks, moves = 0, 0
while claims < max and looks < 16 + max do
  local found = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES', 'LIMIT', 0, 1)
  local inBand = false
  if not found[1] and botBand and not answersOnly then
    found = redis.call('ZRANGEBYSCORE', KEYS[1], botBand, botBand + now, 'LIMIT', 0, 1)
    inBand = true
  end
  local due = found[1]
  if not due then
    break
  end
  local lock = KEYS[2] .. due
  local locked = outbox and redis.call('EXISTS', lock) == 1
  if redis.call('LLEN', KEYS[3] .. due) == 0 then
    looks = looks + 1
    redis.call('ZREM', KEYS[1], due)
    -- Its lease has passed and nothing is left to send: a lock left here is nobody's.
    if outbox then
      redis.call('DEL', lock)
    end
  elseif botBand and not inBand and not locked and moves < 256 and botInitiatedOnly(KEYS[3] .. due) then
    -- Waiting with bot-initiated messages only: behind the answers, at its own ready time.
    moves = moves + 1
    redis.call('ZADD', KEYS[1], botBand + tonumber(found[2]), due)
  else
    looks = looks + 1
    local token = claims == 0 and ARGV[3] or (ARGV[3] .. ':' .. claims)
    redis.call('HSET', lock, 'token', token, 'lease', lease)
    if not outbox then
      redis.call('PEXPIRE', lock, lease)
    end
    redis.call('ZADD', KEYS[1], now + lease, due)
    claims = claims + 1
    view(reply, due, locked)
  end
end
if claims == 0 then
  return ''
end
return reply
