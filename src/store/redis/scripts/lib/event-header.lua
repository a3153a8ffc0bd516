-- An event outbox value (event-value.ts): a JSON header line [attempts, queuedAt, lastError,
-- deadAt, reason, deliveredTo, gaveUpOn], then the event's JSON, which is never decoded here
-- (cjson would alter a bot's payload). Answers the header decoded and the rest as it is. The
-- last two are space-separated words (subscription keys; `key=error`), absent from a value
-- written before they existed.
local function eventHeader(value)
  local newline = string.find(value, '\n', 1, true)
  local header = cjson.decode(string.sub(value, 1, newline - 1))
  header[6] = header[6] or ''
  header[7] = header[7] or ''
  return header, string.sub(value, newline + 1)
end

local function eventWithHeader(header, body)
  return string.format('[%.0f,%.0f,%s,%.0f,%s,%s,%s]\n', header[1], header[2],
    cjson.encode(header[3]), header[4], cjson.encode(header[5]), cjson.encode(header[6]),
    cjson.encode(header[7])) .. body
end

-- The words of `list` and then those of `more` not in it yet, space-separated.
local function withWords(list, more)
  for word in string.gmatch(more, '%S+') do
    if not string.find(' ' .. list .. ' ', ' ' .. word .. ' ', 1, true) then
      list = (list == '' and word) or (list .. ' ' .. word)
    end
  end
  return list
end
