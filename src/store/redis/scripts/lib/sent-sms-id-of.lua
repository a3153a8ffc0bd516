-- The sms id of outbox message `outboxId` when a messages line (conversation-value.ts) has it
-- recorded sent (its "sent" guard: the first such record), or ''.
local function sentSmsIdIn(messages, outboxId)
  if messages and messages ~= '' then
    for _, entry in ipairs(cjson.decode(messages)) do
      if entry[3] == 1 and entry[4].o == outboxId then
        return entry[1]
      end
    end
  end
  return ''
end

-- The same, read from the conversation's value (its transcript left in Redis).
local function sentSmsIdOf(conversationKey, outboxId)
  local _, _, _, messages = conversationParts(conversationHead(conversationKey))
  return sentSmsIdIn(messages, outboxId)
end
