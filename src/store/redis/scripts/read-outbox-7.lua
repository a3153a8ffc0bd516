--[[
  Reads the head of a conversation's outbox, as the sender may send it now, and the sms id its
  "sent" guard holds, if any. The head messages that must not be sent (a suppressed phone, the
  loop guard) are dropped first (lib/outbox-head.lua).

  With a token (the sender's last look before POST /sms), first checks that the claim still
  holds the outbox lock and pushes its lease to now + lease, in the same call: a claim another
  one took over meanwhile reads nothing, drops nothing, and is told 'lost-lock'. A request thus
  only ever starts under a live claim, with a whole lease before it. The head it answers is no
  longer in doubt (its `inDoubtSince` and `inDoubtUntil` go): it is being sent now, and a status
  of this send is not one of a send in doubt (ingest-9.lua).

  Input:
    KEYS[1] outbox list
    KEYS[2] conversation record (its messages line holds the sent guards)
    KEYS[3] suppression of the conversation's phone
    KEYS[4] recent sends to the phone (the loop guard's count)
    KEYS[5] message record key prefix (+ sms id), for the records of dropped messages
    KEYS[6] outbox lock
    KEYS[7] outbox ready set of the partition
    ARGV[1] now (ms)
    ARGV[2] dropped record TTL (s)
    ARGV[3] most messages to drop in this call
    ARGV[4] most messages a transcript keeps (a dropped message goes to it)
    ARGV[5] the claim's token, or '' to read without checking or renewing it
    ARGV[6] lease (ms) to renew with the token
    ARGV[7] conversation id
  Output:
    {head message JSON, sms id, dropped JSON}, '' for each one missing; 'lost-lock'
]]
if ARGV[5] ~= '' then
  if redis.call('HGET', KEYS[6], 'token') ~= ARGV[5] then
    return 'lost-lock'
  end
  -- A claimed outbox's ready time is its lease, in the answers' band (claim-8.lua).
  redis.call('ZADD', KEYS[7], 'XX', tonumber(ARGV[1]) + tonumber(ARGV[6]), ARGV[7])
end
local dropped = {}
local head, message = outboxHead(KEYS[1], KEYS[3], KEYS[4], KEYS[5], tonumber(ARGV[1]), dropped,
  tonumber(ARGV[2]), tonumber(ARGV[3]), KEYS[2], tonumber(ARGV[4]))
if head == '' then
  return {'', '', droppedJson(dropped)}
end
if ARGV[5] ~= '' and (message.inDoubtSince or message.inDoubtUntil) then
  -- Decoded whole to be written again (outboxHead answers only some of its fields).
  message = cjson.decode(head)
  message.inDoubtSince = nil
  message.inDoubtUntil = nil
  head = cjson.encode(message)
  redis.call('LSET', KEYS[1], 0, head)
end
return {head, sentSmsIdOf(KEYS[2], message.id), droppedJson(dropped)}
