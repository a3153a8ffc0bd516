-- A stored conversation value (conversation-value.ts):
-- `<seq>\n<applied>\n<timers>\n<messages>\n<record>[\n<transcript>]`. Answers its six parts as
-- strings ('' for a value with no transcript line), or nil when there is no value.
local function conversationParts(value)
  if not value then
    return nil
  end
  local seq, applied, timers, messages, rest =
    string.match(value, '^(%d+)\n([^\n]*)\n([^\n]*)\n([^\n]*)\n(.*)$')
  if not seq then
    return nil
  end
  local record, transcript = string.match(rest, '^([^\n]*)\n(.*)$')
  if record then
    return seq, applied, timers, messages, record, transcript
  end
  return seq, applied, timers, messages, rest, ''
end

-- A conversation value from its parts (nil parts are empty; no transcript line when it is).
local function conversationValue(seq, applied, timers, messages, record, transcript)
  local value = (seq or '0') .. '\n' .. (applied or '') .. '\n' .. (timers or '') .. '\n' ..
    (messages or '') .. '\n' .. (record or '')
  if transcript and transcript ~= '' then
    return value .. '\n' .. transcript
  end
  return value
end

-- A value as the worker reads it (claims, commits, read-inbox): its transcript line left
-- out, since only `readTranscript` needs it and it may hold 200 messages.
local function withoutTranscript(value)
  if not value then
    return value
  end
  return string.match(value, '^(%d+\n[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*)\n') or value
end

-- A conversation's value less its transcript line, as `withoutTranscript` answers it, read so
-- that the transcript is not copied into Lua when the other five lines fit in the first
-- `headReadBytes`: a `GETRANGE` copies those bytes only, where a `GET` copies the whole value,
-- up to 200 messages (each byte made a Lua string costs Redis about 1.8 ns). For the reads that
-- rewrite nothing; nil when there is no value (`GETRANGE` answers '' for a missing key, and a
-- stored value is never empty).
local headReadBytes = 2048
local function conversationHead(key)
  local part = redis.call('GETRANGE', key, 0, headReadBytes - 1)
  if part == '' then
    return nil
  end
  -- The transcript line starts after the fifth newline.
  local at = 0
  for _ = 1, 5 do
    at = string.find(part, '\n', at + 1, true)
    if not at then
      break
    end
  end
  if at then
    return string.sub(part, 1, at - 1)
  end
  if #part < headReadBytes then
    return part
  end
  return withoutTranscript(redis.call('GET', key))
end

-- A transcript line with one more entry (`i[<at>,<body>,<state>]` or `o[<at>,<sms id>,<body>]`,
-- entries separated by a tab, which JSON always escapes), less the oldest past `cap`. The line
-- starts with its count of entries (`#<n>`, then a tab), so that adding one costs a copy of the
-- line and nothing more: counting the tabs (`string.gsub`) cost 15 ns a byte, twice a turn,
-- 230 us a call at 200 entries. A line written before the count (no `#`) is counted once.
-- No entry is decoded.
local function transcriptWith(transcript, entry, cap)
  if not transcript or transcript == '' then
    return '#1\t' .. entry
  end
  local count, from
  local _, headerEnd, counted = string.find(transcript, '^#(%d+)\t')
  if counted then
    count, from = tonumber(counted), headerEnd + 1
  else
    local _, tabs = string.gsub(transcript, '\t', '')
    count, from = tabs + 1, 1
  end
  count = count + 1
  -- The oldest entries past the cap are skipped, one tab each (at most one a call, but a cap
  -- lowered between releases drops more).
  while count > cap do
    local tab = string.find(transcript, '\t', from, true)
    count = count - 1
    if not tab then
      return '#' .. count .. '\t' .. entry
    end
    from = tab + 1
  end
  return '#' .. count .. '\t' .. string.sub(transcript, from) .. '\t' .. entry
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
