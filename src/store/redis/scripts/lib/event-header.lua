-- An event outbox value (event-value.ts): a JSON header line [attempts, queuedAt, lastError,
-- deadAt, reason], then the event's JSON, which is never decoded here (cjson would alter a
-- bot's payload). Answers the header decoded and the rest as it is.
local function eventHeader(value)
  local newline = string.find(value, '\n', 1, true)
  return cjson.decode(string.sub(value, 1, newline - 1)), string.sub(value, newline + 1)
end

local function eventWithHeader(header, body)
  return string.format('[%.0f,%.0f,%s,%.0f,%s]\n', header[1], header[2], cjson.encode(header[3]),
    header[4], cjson.encode(header[5])) .. body
end
