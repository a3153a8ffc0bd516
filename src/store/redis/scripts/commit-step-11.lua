--[[
  Commits one step of a conversation: checks the lock token (fencing against a claimer whose
  lease ran out), the mailbox head and the record's seq; then writes the record, pops the
  head, appends the outbound messages (and makes the outbox ready), logs the event id as
  applied, extends the lease, and reads the next view.

  Input:
    KEYS[1] inbox lock
    KEYS[2] mailbox
    KEYS[3] conversation record
    KEYS[4] applied log
    KEYS[5] inbox ready set of the partition
    KEYS[6] outbox list
    KEYS[7] outbox ready set of the partition
    KEYS[8] message record key prefix (+ sms id)
    ARGV[1] token
    ARGV[2] event id (the expected head)
    ARGV[3] expected seq (0 when there is no record)
    ARGV[4] new record JSON, or '' to leave the record as it is
    ARGV[5] new record seq
    ARGV[6] now (ms)
    ARGV[7] applied log cap
    ARGV[8] conversation id
    ARGV[9] ready channel
    ARGV[10] outbox ready message
    ARGV[11..] outbound message JSON, in order
  Output:
    {'lost-lock'} | {'stale'} | {'ok', record JSON, next head JSON, origin JSON} ('' = none)
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return {'lost-lock'}
end
local head = redis.call('LINDEX', KEYS[2], 0)
if not head or cjson.decode(head).id ~= ARGV[2] then
  return {'stale'}
end
if tonumber(redis.call('HGET', KEYS[3], 'seq') or '0') ~= tonumber(ARGV[3]) then
  return {'stale'}
end

if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[3], 'seq', ARGV[5], 'json', ARGV[4])
end
redis.call('LPOP', KEYS[2])
if #ARGV >= 11 then
  redis.call('RPUSH', KEYS[6], unpack(ARGV, 11))
  redis.call('ZADD', KEYS[7], 'NX', ARGV[6], ARGV[8])
  redis.call('PUBLISH', ARGV[9], ARGV[10])
end
redis.call('RPUSH', KEYS[4], ARGV[2])
redis.call('LTRIM', KEYS[4], -tonumber(ARGV[7]), -1)

local lease = tonumber(redis.call('HGET', KEYS[1], 'lease'))
redis.call('PEXPIRE', KEYS[1], lease)
redis.call('ZADD', KEYS[5], 'XX', tonumber(ARGV[6]) + lease, ARGV[8])

local record = redis.call('HGET', KEYS[3], 'json') or ''
local next = redis.call('LINDEX', KEYS[2], 0) or ''
local origin = ''
if next ~= '' then
  local event = cjson.decode(next)
  if event.kind == 'reply' and type(event.originSmsId) == 'string' then
    origin = redis.call('HGET', KEYS[8] .. event.originSmsId, 'json') or ''
  end
end
return {'ok', record, next, origin}
