-- The head of an outbox as the sender may send it now (DESIGN §2.6), after dropping, atomically,
-- the head messages that must not be sent: any to a suppressed phone but the opt-out
-- confirmation, and past the message's loop guard (its `max` sends to the phone within its
-- `windowMs`, counted in `sendsKey` by record-sent), any but the opt-out confirmation and the
-- help text. A contact update is never dropped. Messages held for quiet hours (`holdUntil`
-- later than now) at the head move behind the first message that is not held; when all are, the
-- held head is answered (the sender defers it). Each dropped message is popped and gets a
-- message record `dropped:<outbox id>` (status errored, its reason as statusReason, kept
-- `droppedTtl` seconds), goes to the conversation's transcript (`conversationKey`, at most
-- `transcriptCap` messages) as `o[<now>,"dropped:<outbox id>",<body>]`, and is appended to
-- `dropped` as {id, reason, botId}.
-- Answers the head JSON and its fields (lib/outbox-message.lua: its caller need not decode it
-- again, and must not encode them), or '' when the list is empty or `dropLimit` messages
-- were dropped (the caller comes back for the rest: check LLEN, not the answer, before
-- releasing).
local function outboxHead(listKey, suppressedKey, sendsKey, messagePrefix, now, dropped, droppedTtl,
    dropLimit, conversationKey, transcriptCap)
  local suppressed = nil
  for _ = 1, dropLimit do
    local head = redis.call('LINDEX', listKey, 0)
    if not head then
      return ''
    end
    local message = outboxMessageOf(head)
    if message.compliance == 'opt-out' or type(message.contact) == 'table' then
      return head, message
    end
    if suppressed == nil then
      suppressed = redis.call('EXISTS', suppressedKey) == 1
    end
    local reason = nil
    if suppressed then
      reason = 'suppressed'
    elseif message.holdUntil and tonumber(message.holdUntil) > now then
      -- Held for quiet hours: the messages held at the head move behind the first one that is
      -- not (each group keeps its order), so a direct answer never waits for the night to end.
      local items = redis.call('LRANGE', listKey, 0, dropLimit)
      local free = nil
      for i = 2, #items do
        local later = cjson.decode(items[i])
        if not (later.holdUntil and tonumber(later.holdUntil) > now) then
          free = i
          break
        end
      end
      if not free then
        return head, message
      end
      for _ = 1, free - 1 do
        redis.call('RPUSH', listKey, redis.call('LPOP', listKey))
      end
    elseif type(message.loopGuard) == 'table' and message.compliance ~= 'help' then
      local oldest = redis.call('LINDEX', sendsKey, tonumber(message.loopGuard.max) - 1)
      if oldest and tonumber(oldest) > now - tonumber(message.loopGuard.windowMs) then
        reason = 'loop_guard'
      end
    end
    if reason then
      redis.call('LPOP', listKey)
      -- Decoded whole: its record names its run, bot and location.
      message = cjson.decode(head)
      local smsId = 'dropped:' .. message.id
      -- The stored field names of message-value.ts.
      local record = {
        v = 1, l = message.location, s = 'errored', r = reason, u = message.runId,
        b = message.botId, o = message.id,
      }
      -- A message record (message-value.ts): rank 2 (errored), written as sent.
      redis.call('SET', messagePrefix .. smsId, '21' .. cjson.encode(record), 'EX', droppedTtl)
      local seq, applied, timers, messages, stored, transcript =
        conversationParts(redis.call('GET', conversationKey))
      if seq then
        transcript = transcriptWith(transcript, 'o[' .. string.format('%.0f', now) .. ',' ..
          cjson.encode(smsId) .. ',' .. cjson.encode(message.body) .. ']', transcriptCap)
        redis.call('SET', conversationKey,
          conversationValue(seq, applied, timers, messages, stored, transcript), 'KEEPTTL')
        spillTranscript(conversationKey, transcript, transcriptCap)
      end
      dropped[#dropped + 1] = {id = message.id, reason = reason, botId = message.botId}
    elseif not (message.holdUntil and tonumber(message.holdUntil) > now) then
      return head, message
    end
  end
  return ''
end

-- `dropped` as the JSON the driver parses ('' for none).
local function droppedJson(dropped)
  if #dropped == 0 then
    return ''
  end
  return cjson.encode(dropped)
end
