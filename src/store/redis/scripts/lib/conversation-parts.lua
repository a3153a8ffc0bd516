-- A stored conversation value (conversation-value.ts):
-- `[~<write mark>\n]<seq>\n<applied>\n<timers>\n<messages>\n<record>[\n<transcript>]`. The write
-- mark, when there is one, is a line that only the writes built in the process put first (a
-- new one each write; see `valueIs`): every script that rewrites a value through
-- `conversationValue` drops it, so that a mark still in Redis says its value is, byte for
-- byte, the one its writer built. Where the value's own lines start (1, or after the mark).
local function valueStart(value)
  if string.byte(value, 1) ~= 126 then
    return 1
  end
  local cut = string.find(value, '\n', 1, true)
  return cut and cut + 1 or #value + 1
end

-- Whether the conversation value at `key` is `expected` ('' for none): a write mark line
-- (`~<mark>\n`, what a value built in the process starts with) is compared with the same
-- bytes at the start of the stored value (a `GETRANGE`: the value is not copied into Lua);
-- anything else, with the whole stored value.
local function valueIs(key, expected)
  if string.byte(expected, 1) == 126 then
    return redis.call('GETRANGE', key, 0, #expected - 1) == expected
  end
  return (redis.call('GET', key) or '') == expected
end

-- Answers its first five lines as strings (the mark left out), and its transcript line as a
-- reference into the value (`{value, from}`, '' when there is none): a script that rewrites
-- the value passes it on to `conversationValue`, and the line, up to 200 messages, is copied
-- once there instead of once per step (each byte made a Lua string costs Redis about 1.8 ns).
-- `transcriptText` makes it a string. Answers nil when there is no value.
local function conversationParts(value)
  if not value then
    return nil
  end
  local start = valueStart(value)
  local e1 = string.find(value, '\n', start, true)
  local e2 = e1 and string.find(value, '\n', e1 + 1, true)
  local e3 = e2 and string.find(value, '\n', e2 + 1, true)
  local e4 = e3 and string.find(value, '\n', e3 + 1, true)
  if not e4 or not string.find(value, '^%d+\n', start) then
    return nil
  end
  local e5 = string.find(value, '\n', e4 + 1, true)
  local record, transcript = nil, ''
  if e5 then
    record = string.sub(value, e4 + 1, e5 - 1)
    if e5 < #value then
      transcript = {value = value, from = e5 + 1}
    end
  else
    record = string.sub(value, e4 + 1)
  end
  return string.sub(value, start, e1 - 1), string.sub(value, e1 + 1, e2 - 1),
    string.sub(value, e2 + 1, e3 - 1), string.sub(value, e3 + 1, e4 - 1), record, transcript
end

-- A transcript line as a string, from what `conversationParts` or `transcriptWith` answered.
local function transcriptText(transcript)
  if type(transcript) ~= 'table' then
    return transcript or ''
  end
  return (transcript.prefix or '') .. string.sub(transcript.value, transcript.from) ..
    (transcript.suffix or '')
end

-- A conversation value from its parts (nil parts are empty; no transcript line when it is),
-- built in one concatenation: the transcript line is copied once.
local function conversationValue(seq, applied, timers, messages, record, transcript)
  local head = (seq or '0') .. '\n' .. (applied or '') .. '\n' .. (timers or '') .. '\n' ..
    (messages or '') .. '\n' .. (record or '')
  if type(transcript) == 'table' then
    return head .. '\n' .. (transcript.prefix or '') .. string.sub(transcript.value, transcript.from) ..
      (transcript.suffix or '')
  end
  if transcript and transcript ~= '' then
    return head .. '\n' .. transcript
  end
  return head
end

-- A value as the worker reads it (claims, commits, read-inbox): its transcript line left
-- out, since only `readTranscript` needs it and it may hold 200 messages, and its write mark
-- too (a value read here is never the base of a built write).
local function withoutTranscript(value)
  if not value then
    return value
  end
  local start = valueStart(value)
  return string.match(value, '^(%d+\n[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*)\n', start) or
    (start > 1 and string.sub(value, start) or value)
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
  -- The transcript line starts after the fifth newline of the value's own lines.
  local start = valueStart(part)
  local at = start - 1
  for _ = 1, 5 do
    at = string.find(part, '\n', at + 1, true)
    if not at then
      break
    end
  end
  if at then
    return string.sub(part, start, at - 1)
  end
  if #part < headReadBytes then
    return start > 1 and string.sub(part, start) or part
  end
  return withoutTranscript(redis.call('GET', key))
end

-- How many transcript entries the value keeps inline: past `transcriptInlineMost`, the oldest
-- go to a list of their own (`spillTranscript`) until `transcriptInlineKept` are left, so that
-- the value, which the scripts of every turn copy into Lua (each byte made a Lua string costs
-- Redis about 1.8 ns, hashing included), stays short however long the conversation; a
-- conversation of a few messages keeps its transcript in its value alone (one key).
local transcriptInlineMost, transcriptInlineKept = 8, 4

-- The count of entries of the transcript line that starts at `from` in `text`, and where its
-- first entry starts: after its `#<n>` and tab, or, for a line written before the count, at
-- `from` (its tabs counted once: `string.gsub` costs 15 ns a byte).
local function transcriptCount(text, from)
  local _, headerEnd, counted = string.find(text, '^#(%d+)\t', from)
  if counted then
    return tonumber(counted), headerEnd + 1
  end
  if from > #text then
    return 0, from
  end
  local _, tabs = string.gsub(string.sub(text, from), '\t', '')
  return tabs + 1, from
end

-- A transcript line with one more entry (`i[<at>,<body>,<state>]` or `o[<at>,<sms id>,<body>]`,
-- entries separated by a tab, which JSON always escapes). The line starts with its count of
-- entries (`#<n>`, then a tab), so that adding one costs no count of the line's tabs
-- (`string.gsub`: 15 ns a byte). A line written before the count (no `#`) is counted once. No
-- entry is decoded, and the line is not copied here: the answer is a reference into the value
-- with the new count before and the entry after, which `conversationValue` writes out. With
-- `cap` (the transcript's most entries) above `transcriptInlineMost`, a line past that many
-- keeps its `transcriptInlineKept` newest and answers the older ones as `spilled` (oldest
-- first), for `spillTranscript` to move to the conversation's transcript list; with a smaller
-- cap, the oldest past it are dropped.
local function transcriptWith(transcript, entry, cap)
  local carried = type(transcript) == 'table' and transcript.spilled or nil
  if type(transcript) == 'table' and (transcript.prefix or transcript.suffix) then
    transcript = transcriptText(transcript)
  end
  if not transcript or transcript == '' then
    return {value = entry, from = 1, prefix = '#1\t', spilled = carried}
  end
  if type(transcript) ~= 'table' then
    transcript = {value = transcript, from = 1}
  end
  local value = transcript.value
  local count, from = transcriptCount(value, transcript.from)
  count = count + 1
  local spilling = cap > transcriptInlineMost and count > transcriptInlineMost
  local keep, spilled = cap, carried
  if spilling then
    keep, spilled = transcriptInlineKept, carried or {}
  end
  -- The oldest entries past what is kept are skipped, one tab each (at most one a call at the
  -- cap, but a cap lowered between releases drops more), or spilled.
  while count > keep do
    local tab = string.find(value, '\t', from, true)
    count = count - 1
    if spilling then
      spilled[#spilled + 1] = string.sub(value, from, (tab or 0) - 1)
    end
    if not tab then
      return {value = entry, from = 1, prefix = '#' .. count .. '\t', spilled = spilled}
    end
    from = tab + 1
  end
  return {value = value, from = from, prefix = '#' .. count .. '\t', suffix = '\t' .. entry,
    spilled = spilled}
end

-- The conversation's transcript list (keys.ts): its entries older than the value's inline ones,
-- oldest first.
local function transcriptKeyOf(conversationKey)
  return (string.gsub(conversationKey, '}:conv:', '}:transcript:', 1))
end

-- After the value is written: appends the entries `transcriptWith` spilled to the
-- conversation's transcript list, keeps the newest `cap` less the inline ones kept, and gives
-- the list the value's TTL (none while the conversation is active).
local function spillTranscript(conversationKey, transcript, cap)
  if type(transcript) ~= 'table' or not transcript.spilled or #transcript.spilled == 0 then
    return
  end
  local key = transcriptKeyOf(conversationKey)
  redis.call('RPUSH', key, unpack(transcript.spilled))
  redis.call('LTRIM', key, transcriptInlineKept - cap, -1)
  local ttl = redis.call('PTTL', conversationKey)
  if ttl > 0 then
    redis.call('PEXPIRE', key, ttl)
  else
    redis.call('PERSIST', key)
  end
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
