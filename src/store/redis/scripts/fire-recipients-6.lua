--[[
  Applies the runner's decisions for due recipients of one chunk, each only when the recipient
  is still as the runner read it (that revision, scheduled or held): so any number of runners
  can race and each schedule starts once. A start goes into the phone's mailbox as an event (the
  same path as an API start), unless the phone opted out: then it is skipped, `opted_out`. A
  campaign that is not active (paused, cancelled) applies nothing. Each change moves the
  counters in the same call.

  Input:
    KEYS[1] the chunk (hash: row → recipient value)
    KEYS[2] the campaign's recipient counters in the partition
    KEYS[3] the campaign's state in the partition
    KEYS[4] mailbox key prefix (+ conversation id)
    KEYS[5] inbox ready set of the partition
    KEYS[6] suppression key prefix (+ conversation id)
    ARGV[1] now (ms)
    ARGV[2] ready channel
    ARGV[3] inbox ready message of the partition
    ARGV[4..] five per decision: row, revision, action ('start' | 'hold' | 'skip'), its
              argument (start: the event JSON; hold: until (ms); skip: the reason), and for a
              start the conversation id ('' otherwise)
  Output:
    {'paused' | 'cancelled'} when the campaign does not fire, or {'ok', outcome per decision:
    'started' | 'opted_out' | 'held' | 'skipped' | 'stale'}
]]
local state = redis.call('GET', KEYS[3])
if state and state ~= 'active' then
  return {state}
end
local now = tonumber(ARGV[1])
local out = {'ok'}
local announce = false
for i = 4, #ARGV, 5 do
  local row, revision, action, argument, conversation =
    ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local value = redis.call('HGET', KEYS[1], row)
  local outcome = 'stale'
  if value then
    local header, input = recipientParts(value)
    if (header.v or 0) == revision and (header.s == 'scheduled' or header.s == 'held') then
      local from = recipientField(header)
      if action == 'start' then
        if redis.call('EXISTS', KEYS[6] .. conversation) == 1 then
          header.s, header.r, outcome = 'skipped', 'opted_out', 'opted_out'
        else
          redis.call('RPUSH', KEYS[4] .. conversation, argument)
          if redis.call('ZADD', KEYS[5], 'NX', now, conversation) == 1 then
            announce = true
          end
          header.s, outcome = 'started', 'started'
        end
      elseif action == 'hold' then
        header.s, header.d, outcome = 'held', tonumber(argument), 'held'
      else
        header.s, header.r, outcome = 'skipped', argument, 'skipped'
      end
      redis.call('HSET', KEYS[1], row, recipientValue(header, input))
      moveRecipientCount(KEYS[2], from, recipientField(header))
    end
  end
  out[#out + 1] = outcome
end
if announce then
  redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return out
