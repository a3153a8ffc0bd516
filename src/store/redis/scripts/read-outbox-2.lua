--[[
  Reads the head of a conversation's outbox and the sms id its "sent" guard holds, if any.

  Input:
    KEYS[1] outbox list
    KEYS[2] sent guard key prefix (+ outbox message id)
  Output:
    {head message JSON, sms id}, '' for each one missing
]]
local head = redis.call('LINDEX', KEYS[1], 0)
if not head then
  return {'', ''}
end
return {head, redis.call('GET', KEYS[2] .. cjson.decode(head).id) or ''}
