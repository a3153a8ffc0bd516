-- Whether an outbox holds messages the bot sent on its own only (`botInitiated`: a start's, a
-- timer's, a campaign's), its first 16 looked at: such an outbox waits for the sender in the
-- bot-initiated band of the ready set, behind every answer (src/store/README.md, "Answers
-- first"). A body cannot pass for the mark: its quotes are escaped in the message's JSON.
local function botInitiatedOnly(list)
  local messages = redis.call('LRANGE', list, 0, 15)
  if #messages == 0 then
    return false
  end
  for _, json in ipairs(messages) do
    if not string.find(json, '"botInitiated":true', 1, true) then
      return false
    end
  end
  return true
end
