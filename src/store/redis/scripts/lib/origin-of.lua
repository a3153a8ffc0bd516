-- The stored record (message-value.ts) of the message a mailbox event (its JSON) is about: the
-- one a reply answers, or the one a status reports on; '' for no event, or a message replyflow
-- did not send. `value` is the event's conversation value as read, `messagePrefix` the
-- message record key prefix of its slot (+ sms id).
local function originOf(eventJson, value, messagePrefix)
  if eventJson == '' then
    return ''
  end
  local smsId = nil
  local _, kind = eventStart(eventJson)
  if kind then
    smsId = eventSmsId(eventJson, kind)
  end
  if smsId == nil then
    local event = cjson.decode(eventJson)
    smsId = event.kind == 'reply' and event.originSmsId or (event.kind == 'status' and event.smsId)
  end
  if type(smsId) == 'string' and smsId ~= '' then
    return messageOf(value, messagePrefix, smsId) or ''
  end
  return ''
end
