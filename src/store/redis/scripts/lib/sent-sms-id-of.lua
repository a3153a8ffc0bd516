-- The sms id of outbox message `outboxId` when a messages line (conversation-value.ts) has it
-- recorded sent (its "sent" guard: the first such record), or ''. An id of plain characters
-- that the line does not hold as a JSON string is not there: the line is then not decoded (an
-- outbox message handed over or sent next is almost always new, and decoding the records of
-- the latest messages was most of this lookup's cost).
local function sentSmsIdIn(messages, outboxId)
  if not messages or messages == '' then
    return ''
  end
  if plainId(outboxId) and not string.find(messages, '"' .. outboxId .. '"', 1, true) then
    return ''
  end
  for _, entry in ipairs(cjson.decode(messages)) do
    if entry[3] == 1 and entry[4].o == outboxId then
      return entry[1]
    end
  end
  return ''
end

-- The same, read from the conversation's value (its transcript left in Redis).
local function sentSmsIdOf(conversationKey, outboxId)
  local _, _, _, messages = conversationParts(conversationHead(conversationKey))
  return sentSmsIdIn(messages, outboxId)
end
