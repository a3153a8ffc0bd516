-- A recipient value (recipient-value.ts): its header, decoded, and the rest (the bot's input
-- JSON) as it is: Redis's JSON library never re-encodes the input.
local function recipientParts(value)
  local split = string.find(value, '\n', 1, true)
  if not split then
    return cjson.decode(value), ''
  end
  return cjson.decode(string.sub(value, 1, split - 1)), string.sub(value, split + 1)
end

-- A recipient value from its header and its input JSON.
local function recipientValue(header, input)
  return cjson.encode(header) .. '\n' .. input
end

-- The counter field of a recipient's state (campaign-records.ts `stateField`).
local function recipientField(header)
  if header.s == 'skipped' or header.s == 'failed' then
    return header.s .. ':' .. (header.r or 'unknown')
  end
  return header.s
end

-- Moves one recipient from a state's counter to another's (nil: none), in the same call as
-- the change of state itself.
local function moveRecipientCount(countersKey, from, to)
  if from == to then
    return
  end
  if from then
    redis.call('HINCRBY', countersKey, from, -1)
  end
  if to then
    redis.call('HINCRBY', countersKey, to, 1)
  end
end

-- The earliest time (ms) a recipient of the chunk waits for (scheduled or held), or nil.
local function chunkEarliest(chunkKey)
  local fields = redis.call('HGETALL', chunkKey)
  local earliest = nil
  for i = 2, #fields, 2 do
    local header = recipientParts(fields[i])
    if (header.s == 'scheduled' or header.s == 'held') and header.d then
      local due = tonumber(header.d)
      if not earliest or due < earliest then
        earliest = due
      end
    end
  end
  return earliest
end

-- A campaign's keys in a partition where none of its recipients waits any more expire after
-- the retention (DESIGN §2.7); an import that brings more makes them persistent again.
local function expireCampaignPart(chunkPrefix, chunks, chunksKey, stateKey, countersKey, retention)
  if redis.call('ZCARD', chunksKey) > 0 then
    return
  end
  for chunk = 0, chunks - 1 do
    redis.call('PEXPIRE', chunkPrefix .. chunk, retention)
  end
  redis.call('PEXPIRE', stateKey, retention)
  redis.call('PEXPIRE', countersKey, retention)
end

-- Puts a campaign in the partition's due set at the earliest of its chunks, or takes it out
-- when none waits or the campaign does not fire (paused, cancelled). Answers its due time.
local function campaignDue(dueKey, chunksKey, stateKey, campaign)
  local state = redis.call('GET', stateKey)
  local first = redis.call('ZRANGE', chunksKey, 0, 0, 'WITHSCORES')
  if first[2] and (not state or state == 'active') then
    redis.call('ZADD', dueKey, first[2], campaign)
    return tonumber(first[2])
  end
  redis.call('ZREM', dueKey, campaign)
  return nil
end
