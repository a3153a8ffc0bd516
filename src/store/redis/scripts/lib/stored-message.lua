-- A messages line entry (conversation-value.ts), `{sms id, rank, sent (1 or 0), record}`, whose
-- record leaves out `v` and `l` (the location: the conversation's), as the string a message
-- record key holds (message-value.ts).
local function storedMessage(entry)
  return entry[2] .. entry[3] .. cjson.encode(entry[4])
end

-- The entry of a message record (its table, as a key holds it) of sms `smsId`.
local function messageEntry(smsId, rank, sent, record)
  record.v = nil
  record.l = nil
  return {smsId, rank, sent and 1 or 0, record}
end

-- The record of an entry as a key of its own holds it, given the conversation's location.
local function spilledMessage(entry, location)
  entry[4].v = 1
  entry[4].l = location
  return storedMessage(entry)
end
