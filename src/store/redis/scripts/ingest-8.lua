--[[
  Takes in the items of one notification that belong to one partition, at most once per
  notification id: status items move their message record forward only (and are pushed only
  when it moved); every pushed event goes onto its conversation's mailbox in ARGV order, and
  the conversation becomes ready unless it already has a ready time (a claimed one keeps its
  lease; its release re-readies it).

  A status that moved a message record replyflow has not yet recorded as sent (no `sent`
  field: the status overtook the answer to POST /sms) is not pushed: it is appended to the
  sms's early status list, which `recordSent` moves into the mailbox with the record's run.
  Its body, when given, goes into the conversation's unrecorded sends (body → sms id): should
  the sender that made the request have died before recording it, the claim that takes its
  outbox over finds the sms id there instead of sending the message again (see claim-9.lua).

  The partition is announced when this call made a conversation ready and left it to any
  worker, unless other conversations were already due there (a backlog: see below).

  With a lease given, a conversation this call made ready (it had no ready time: nobody holds
  it, nothing waits) and that has no lock is claimed here, up to `max` of them, as claim-9.lua
  would, for the worker of the caller's process: token `<token base>:<n>`, ready time
  now + lease, and not announced. Its first view comes back with it.

  Input:
    KEYS[1] seen key of the notification in this partition
    KEYS[2] inbox ready set of the partition
    KEYS[3] mailbox key prefix (+ conversation id)
    KEYS[4] message record key prefix (+ sms id)
    KEYS[5] early status list key prefix (+ sms id)
    KEYS[6] unrecorded sends key prefix (+ conversation id)
    KEYS[7] inbox lock key prefix (+ conversation id)
    KEYS[8] conversation record key prefix (+ conversation id)
    ARGV[1] now (ms)
    ARGV[2] seen TTL (s)
    ARGV[3] ready channel
    ARGV[4] ready message
    ARGV[5] early status list TTL (s), also the unrecorded sends' TTL
    ARGV[6] inbox lease (ms) of the claims to make here; 0 makes none
    ARGV[7] most claims to make
    ARGV[8] token base of those claims
    ARGV[9..] six per item: conversation id, event JSON, sms id ('' unless a status item),
              status rank, message record JSON (created as is, or merged into the existing
              one), the sms body as the service reported it ('' when unknown)
  Output:
    {1, 0} when the partition had already seen the notification, else {0, events pushed,
    then five per claim made: conversation id, token, record JSON, head event JSON, origin
    message record JSON ('' for each one missing)} (statuses kept in an early status list are
    not counted)
]]
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[2]) then
  return {1, 0}
end

local lease = tonumber(ARGV[6])
local max = tonumber(ARGV[7])
local claimed = {}
-- Conversations this call made ready and left for any worker to claim.
local fresh = 0
local pushed = 0
for i = 9, #ARGV, 6 do
  local push = true
  local smsId = ARGV[i + 2]
  if smsId ~= '' then
    local key = KEYS[4] .. smsId
    local rank = tonumber(ARGV[i + 3])
    local current = redis.call('HMGET', key, 'rank', 'sent', 'json')
    if current[1] and tonumber(current[1]) >= rank then
      push = false
    else
      local json = ARGV[i + 4]
      local sent = current[2] == '1'
      if current[3] then
        local record = cjson.decode(current[3])
        -- A record written by recordSent before the `sent` field existed carries its run.
        sent = sent or record.runId ~= nil
        for field, value in pairs(cjson.decode(json)) do
          record[field] = value
        end
        json = cjson.encode(record)
      end
      redis.call('HSET', key, 'rank', rank, 'json', json)
      if not sent then
        local early = KEYS[5] .. smsId
        redis.call('RPUSH', early, ARGV[i + 1])
        redis.call('EXPIRE', early, ARGV[5])
        if ARGV[i + 5] ~= '' then
          local unrecorded = KEYS[6] .. ARGV[i]
          redis.call('HSET', unrecorded, ARGV[i + 5], smsId)
          redis.call('EXPIRE', unrecorded, ARGV[5])
        end
        push = false
      end
    end
  end
  if push then
    local id = ARGV[i]
    redis.call('RPUSH', KEYS[3] .. id, ARGV[i + 1])
    local madeReady = redis.call('ZADD', KEYS[2], 'NX', ARGV[1], id) == 1
    pushed = pushed + 1
    local lock = KEYS[7] .. id
    if madeReady and lease > 0 and #claimed < max and redis.call('EXISTS', lock) == 0 then
      local token = ARGV[8] .. ':' .. #claimed
      redis.call('HSET', lock, 'token', token, 'lease', lease)
      redis.call('PEXPIRE', lock, lease)
      redis.call('ZADD', KEYS[2], tonumber(ARGV[1]) + lease, id)
      claimed[#claimed + 1] = {id, token}
    elseif madeReady then
      fresh = fresh + 1
    end
  end
end

-- Announced only when nothing else was due in the partition: conversations already due were
-- announced when they became ready, and the workers that have not claimed them yet are busy
-- (a backlog) and will scan the partition again; the message would only cost every process a
-- read. (Workers also poll, so a lost announcement delays work by their idle interval at most.)
if fresh > 0 and redis.call('ZCOUNT', KEYS[2], '-inf', ARGV[1]) <= fresh then
  redis.call('PUBLISH', ARGV[3], ARGV[4])
end
local reply = {0, pushed}
-- The first view of each claim, as claim-9.lua reads it, once every item is in.
for _, claim in ipairs(claimed) do
  local id = claim[1]
  local head = redis.call('LINDEX', KEYS[3] .. id, 0) or ''
  local origin = originOf(head, KEYS[4])
  reply[#reply + 1] = id
  reply[#reply + 1] = claim[2]
  reply[#reply + 1] = redis.call('HGET', KEYS[8] .. id, 'json') or ''
  reply[#reply + 1] = head
  reply[#reply + 1] = origin
end
return reply
