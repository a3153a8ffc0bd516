-- The id, kind and receivedAt (as text) of a mailbox event, read off the start of its JSON as
-- the driver writes it (`{"id":"…","kind":"…","receivedAt":<ms>,…`: mailboxEventJson in
-- redis-inbox-operations.ts), so that the event is not decoded (each key and string value
-- cjson meets is a Lua string). Answers nil when the event starts otherwise (one a script
-- wrote, an id holding an escape): decode it then.
local function eventStart(json)
  return string.match(json, '^{"id":"([^"\\]*)","kind":"(%a+)","receivedAt":(%d+)[,}]')
end

-- The sms id a mailbox event is about, read as text: a reply's `originSmsId`, a status's
-- `smsId` (both events are flat objects, so the key can only be theirs: no JSON string holds
-- an unescaped quote), '' for another kind; nil when it cannot be read so (decode it).
local function eventSmsId(json, kind)
  if kind == 'reply' then
    return jsonField(json, 'originSmsId":"', '^([^"\\]*)"')
  end
  if kind == 'status' then
    return jsonField(json, 'smsId":"', '^([^"\\]*)"')
  end
  return ''
end

-- A reply event's body as its JSON string (quotes included), read as text when it holds no
-- escape; nil otherwise.
local function replyBodyJson(json)
  return jsonField(json, 'body":', '^("[^"\\]*")')
end
