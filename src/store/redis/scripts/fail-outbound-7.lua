--[[
  A permanent send failure, or a contact update done: pops the head message and pushes the
  event (a status, or a contact update's outcome) onto the conversation's mailbox (making the
  mailbox ready), so the bot hears of it; the outbox lease
  is extended for the messages that follow. An SMS (not a contact update) gets a message record
  `failed:<outbox id>` (status errored, the event's reason, kept for the retention) and goes to
  the conversation's transcript under that id, as a dropped message does (lib/outbox-head.lua).

  Input:
    KEYS[1] outbox lock
    KEYS[2] outbox list
    KEYS[3] mailbox
    KEYS[4] inbox ready set of the partition
    KEYS[5] outbox ready set of the partition
    KEYS[6] conversation value (its transcript line)
    KEYS[7] message record key prefix (+ sms id), in the partition
    ARGV[1] token
    ARGV[2] outbox message id (the expected head)
    ARGV[3] status event JSON
    ARGV[4] now (ms)
    ARGV[5] conversation id
    ARGV[6] ready channel
    ARGV[7] inbox ready message
    ARGV[8] the message record's TTL (s): the retention
    ARGV[9] most messages a transcript keeps
  Output:
    'ok' | 'lost-lock' | 'stale'
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return 'lost-lock'
end
local head = redis.call('LINDEX', KEYS[2], 0)
if not head or cjson.decode(head).id ~= ARGV[2] then
  return 'stale'
end
redis.call('LPOP', KEYS[2])
local message = cjson.decode(head)
if type(message.contact) ~= 'table' then
  local smsId = 'failed:' .. message.id
  -- The stored field names of message-value.ts; rank 2 (errored), written as sent.
  local record = {
    v = 1, l = message.location, s = 'errored', r = cjson.decode(ARGV[3]).statusReason,
    u = message.runId, b = message.botId, o = message.id,
  }
  redis.call('SET', KEYS[7] .. smsId, '21' .. cjson.encode(record), 'EX', ARGV[8])
  local seq, applied, timers, messages, stored, transcript =
    conversationParts(redis.call('GET', KEYS[6]))
  if seq then
    transcript = transcriptWith(transcript, 'o[' .. string.format('%.0f', tonumber(ARGV[4])) ..
      ',' .. cjson.encode(smsId) .. ',' .. cjson.encode(message.body) .. ']', tonumber(ARGV[9]))
    redis.call('SET', KEYS[6], conversationValue(seq, applied, timers, messages, stored, transcript),
      'KEEPTTL')
    spillTranscript(KEYS[6], transcript, tonumber(ARGV[9]))
  end
end
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('ZADD', KEYS[4], 'NX', ARGV[4], ARGV[5])
redis.call('PUBLISH', ARGV[6], ARGV[7])

-- The outbox lock has no TTL (see claim-8.lua): the lease is the ready time alone.
local lease = tonumber(redis.call('HGET', KEYS[1], 'lease'))
redis.call('ZADD', KEYS[5], 'XX', tonumber(ARGV[4]) + lease, ARGV[5])
return 'ok'
