--[[
  Reads the head of a conversation's outbox, as the sender may send it now, and the sms id its
  "sent" guard holds, if any. The head messages that must not be sent (a suppressed phone, the
  loop guard) are dropped first (lib/outbox-head.lua).

  Input:
    KEYS[1] outbox list
    KEYS[2] conversation record (its messages line holds the sent guards)
    KEYS[3] suppression of the conversation's phone
    KEYS[4] recent sends to the phone (the loop guard's count)
    KEYS[5] message record key prefix (+ sms id), for the records of dropped messages
    ARGV[1] now (ms)
    ARGV[2] dropped record TTL (s)
    ARGV[3] most messages to drop in this call
    ARGV[4] most messages a transcript keeps (a dropped message goes to it)
  Output:
    {head message JSON, sms id, dropped JSON}, '' for each one missing
]]
local dropped = {}
local head = outboxHead(KEYS[1], KEYS[3], KEYS[4], KEYS[5], tonumber(ARGV[1]), dropped,
  tonumber(ARGV[2]), tonumber(ARGV[3]), KEYS[2], tonumber(ARGV[4]))
if head == '' then
  return {'', '', droppedJson(dropped)}
end
return {head, sentSmsIdOf(KEYS[2], cjson.decode(head).id), droppedJson(dropped)}
