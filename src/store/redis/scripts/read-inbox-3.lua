--[[
  Reads a conversation's record, the head of its mailbox and the record of the message the head
  is about (the one a reply answers, or the one a status reports on).

  Input:
    KEYS[1] conversation record
    KEYS[2] mailbox
    KEYS[3] message record key prefix (+ sms id)
  Output:
    {record JSON, head event JSON, origin message record JSON}, '' for each one missing
]]
local record = redis.call('HGET', KEYS[1], 'json') or ''
local head = redis.call('LINDEX', KEYS[2], 0) or ''
local origin = ''
if head ~= '' then
  local event = cjson.decode(head)
  -- The message the event is about: the one a reply answers, or the one a status reports on.
  local smsId = event.kind == 'reply' and event.originSmsId or (event.kind == 'status' and event.smsId)
  if type(smsId) == 'string' and smsId ~= '' then
    origin = redis.call('HGET', KEYS[3] .. smsId, 'json') or ''
  end
end
return {record, head, origin}
