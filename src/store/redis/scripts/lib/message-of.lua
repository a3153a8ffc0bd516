-- The stored record (message-value.ts) of sms `smsId`, or nil. A conversation value (`value`,
-- as read: the caller has it already) keeps the records of its latest messages in its messages
-- line (`messageEntry`); older ones, and those of no conversation, have a key of their own
-- (`messagePrefix`).
local function messageOf(value, messagePrefix, smsId)
  local _, _, _, messages = conversationParts(value or nil)
  if plainId(smsId) then
    -- Read as text (lib/messages-line.lua): the line's records are not decoded.
    local from, _, rank, sent, record = messagesEntryAt(messages, smsId)
    if from then
      return storedMessageText(rank, sent, record)
    end
    if from == nil then
      return redis.call('GET', messagePrefix .. smsId) or nil
    end
  end
  if messages and messages ~= '' then
    for _, entry in ipairs(cjson.decode(messages)) do
      if entry[1] == smsId then
        return storedMessage(entry)
      end
    end
  end
  return redis.call('GET', messagePrefix .. smsId) or nil
end
