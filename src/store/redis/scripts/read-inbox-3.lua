--[[
  Reads a conversation's record, the head of its mailbox and, when the head is a reply, the
  record of the message it answers.

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
  if event.kind == 'reply' and type(event.originSmsId) == 'string' then
    origin = redis.call('HGET', KEYS[3] .. event.originSmsId, 'json') or ''
  end
end
return {record, head, origin}
