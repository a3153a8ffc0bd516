-- Whether a conversation's mailbox holds no person's reply among its first 16 events (only
-- starts, timers, statuses, contact outcomes: work the bot does on its own): such a mailbox
-- waits for the worker in the bot-initiated band of the inbox ready set, behind every reply
-- (src/store/README.md, "Answers first"), so a campaign's starts never hold up an answer. A
-- reply's body cannot pass for the mark: its quotes are escaped in the event's JSON.
local function awaitsNoAnswer(list)
  local events = redis.call('LRANGE', list, 0, 15)
  if #events == 0 then
    return false
  end
  for _, json in ipairs(events) do
    if string.find(json, '"kind":"reply"', 1, true) then
      return false
    end
  end
  return true
end

-- The bot-initiated band of the ready sets starts here (storeLimits.botBandMs, 2^43 ms): a
-- score at or past it is a conversation waiting behind the answers.
local function inBotBand(score)
  return score ~= false and score ~= nil and tonumber(score) >= 8796093022208
end
