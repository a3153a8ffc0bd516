-- The record JSON of the message a mailbox event (its JSON) is about: the one a reply answers,
-- or the one a status reports on; '' for no event, or a message replyflow did not send.
-- `messagePrefix` is the message record key prefix of the event's slot (+ sms id).
local function originOf(eventJson, messagePrefix)
  if eventJson == '' then
    return ''
  end
  local event = cjson.decode(eventJson)
  local smsId = event.kind == 'reply' and event.originSmsId or (event.kind == 'status' and event.smsId)
  if type(smsId) == 'string' and smsId ~= '' then
    return redis.call('HGET', messagePrefix .. smsId, 'json') or ''
  end
  return ''
end
