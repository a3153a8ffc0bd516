-- A stored conversation value (conversation-value.ts):
-- `<seq>\n<applied>\n<timers>\n<messages>\n<record>`. Answers its five parts as strings, or nil
-- when there is no value.
local function conversationParts(value)
  if not value then
    return nil
  end
  return string.match(value, '^(%d+)\n([^\n]*)\n([^\n]*)\n([^\n]*)\n(.*)$')
end

-- A conversation value from its five parts (nil parts are empty).
local function conversationValue(seq, applied, timers, messages, record)
  return (seq or '0') .. '\n' .. (applied or '') .. '\n' .. (timers or '') .. '\n' ..
    (messages or '') .. '\n' .. (record or '')
end

-- The run id the record JSON starts with (`{"v":1,"runId":"…"`).
local function runIdOf(record)
  return string.match(record, '^{"v":1,"runId":"([^"]*)"')
end

-- The line of a list of entries ('' for none: cjson would write an empty table as `{}`).
local function timersLine(entries)
  if #entries == 0 then
    return ''
  end
  return cjson.encode(entries)
end
