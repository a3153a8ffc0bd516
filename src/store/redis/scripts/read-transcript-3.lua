--[[
  Reads a conversation's transcript in one call: its value (record, timers, messages line and
  transcript line, with the entries of its transcript list before the line's own: see
  `spillTranscript`, newest `ARGV[1]` in all), the message records of the transcript's
  outbound messages that have left the value for keys of their own, and the result of the
  record's run.

  Input:
    KEYS[1] conversation value (conversation-value.ts)
    KEYS[2] message record key prefix (+ sms id), in the partition
    KEYS[3] result key prefix (+ run id), in the partition
    ARGV[1] the most entries the transcript keeps
  Output:
    {stored value, result JSON, sms id, stored message record, sms id, …} ('' for none), each
    sms id of the transcript's outbound entries not in the value's messages line whose record
    is still kept
]]
local value = redis.call('GET', KEYS[1])
if not value then
  return {'', ''}
end
local seq, applied, timers, messages, record, transcript = conversationParts(value)
transcript = transcriptText(transcript)
local older = redis.call('LRANGE', transcriptKeyOf(KEYS[1]), 0, -1)
if #older > 0 then
  -- The line's own entries after the list's, the oldest past the cap left out.
  local count, from = transcriptCount(transcript, 1)
  local inline = string.sub(transcript, from)
  local first = math.max(1, #older + count - tonumber(ARGV[1]) + 1)
  local kept = #older - first + 1
  if kept > 0 then
    local entries = table.concat(older, '\t', first)
    if inline ~= '' then
      entries = entries .. '\t' .. inline
    end
    transcript = '#' .. (kept + count) .. '\t' .. entries
    value = conversationValue(seq, applied, timers, messages, record, transcript)
  end
end
local runId = record and runIdOf(record)
local reply = {value, runId and redis.call('GET', KEYS[3] .. runId) or ''}
if not transcript or transcript == '' then
  return reply
end
local inValue = {}
if messages and messages ~= '' then
  for _, entry in ipairs(cjson.decode(messages)) do
    inValue[entry[1]] = true
  end
end
-- An outbound entry starts a line or follows a tab, `o[<at>,"<sms id>"`: sms ids hold no quote
-- or escape.
-- Each outbound entry, `o[<at>,<sms id>,<body>]`: its sms id read as it is when it holds no
-- escape, else decoded (a quote, a backslash, a slash, which cjson writes `\/`).
for entry in string.gmatch('\t' .. transcript, '\t(o%[[^\t]*)') do
  local smsId = string.match(entry, '^o%[[%d.]+,"([^"\\]*)"') or cjson.decode(string.sub(entry, 2))[2]
  if not inValue[smsId] then
    inValue[smsId] = true
    local stored = redis.call('GET', KEYS[2] .. smsId)
    if stored then
      reply[#reply + 1] = smsId
      reply[#reply + 1] = stored
    end
  end
end
return reply
