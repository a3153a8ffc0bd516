--[[
  Imports rows of one campaign that belong to one partition, each atomically with its counters:
  a new row is added; a row named before keeps its state when its time and input are unchanged
  (only its import generation and line move), and is rescheduled otherwise (a new revision:
  its next start is a new event, so each schedule starts once); a row to start whose phone opted
  out is skipped (`opted_out`). Scheduled rows go into the due index: their chunk at the earliest
  time it waits for, the campaign at its earliest chunk (unless paused or cancelled); when that
  moved the campaign earlier, every process's runner hears of it ("campaigns:<partition>:<due>").

  Input:
    KEYS[1] recipient chunk key prefix of the campaign in the partition (+ chunk number)
    KEYS[2] the campaign's chunks in the partition (zset: chunk → earliest due)
    KEYS[3] the partition's due campaigns (zset: campaign id → earliest due)
    KEYS[4] the campaign's recipient counters in the partition (hash: state field → count)
    KEYS[5] suppression key prefix (+ conversation id)
    KEYS[6] the campaign's state in the partition ('active' when absent, 'paused', 'cancelled')
    ARGV[1] campaign id (`<location>:<name>`)
    ARGV[2] the import's generation
    ARGV[3] location
    ARGV[4] ready channel
    ARGV[5] partition number
    ARGV[6..] three per row: chunk, row key, recipient value (recipient-value.ts, revision 0)
  Output:
    {added, rescheduled, unchanged, opted out}
]]
local generation = tonumber(ARGV[2])
local added, changed, unchanged, optedOut = 0, 0, 0, 0
local campaignEarliest = nil
for i = 6, #ARGV, 3 do
  local chunk, row = ARGV[i], ARGV[i + 1]
  local key = KEYS[1] .. chunk
  local header, input = recipientParts(ARGV[i + 2])
  local old = redis.call('HGET', key, row)
  local oldHeader, oldInput = nil, nil
  if old then
    oldHeader, oldInput = recipientParts(old)
  end
  -- The same time and input: whatever became of it stands (a time that has just passed does not
  -- skip a recipient about to start). A row without a phone is known by its line: its reason too.
  -- An API start is also known by its request (`f`): another bot at the same time is a change.
  local phone = header.p or string.match(row, '^%d+$')
  if oldHeader and oldHeader.d == header.d and oldInput == input and oldHeader.f == header.f and
      (phone or oldHeader.r == header.r) then
    unchanged = unchanged + 1
    oldHeader.g = generation
    oldHeader.l = header.l
    redis.call('HSET', key, row, recipientValue(oldHeader, oldInput))
  else
    if header.s == 'scheduled' and phone and
        redis.call('EXISTS', KEYS[5] .. ARGV[3] .. ':' .. phone) == 1 then
      header.s = 'skipped'
      header.r = 'opted_out'
      optedOut = optedOut + 1
    end
    header.g = generation
    if oldHeader then
      header.v = (oldHeader.v or 0) + 1
      changed = changed + 1
      moveRecipientCount(KEYS[4], recipientField(oldHeader), recipientField(header))
    else
      header.v = 0
      added = added + 1
      moveRecipientCount(KEYS[4], nil, recipientField(header))
    end
    redis.call('HSET', key, row, recipientValue(header, input))
    if header.s == 'scheduled' and header.d then
      local due = tonumber(header.d)
      -- Waiting again: the campaign's keys here no longer expire (settle-chunk set them to).
      redis.call('PERSIST', key)
      redis.call('ZADD', KEYS[2], 'LT', due, chunk)
      if not campaignEarliest or due < campaignEarliest then
        campaignEarliest = due
      end
    end
  end
end
if campaignEarliest then
  redis.call('PERSIST', KEYS[4])
  redis.call('PERSIST', KEYS[6])
end
local state = redis.call('GET', KEYS[6])
if campaignEarliest and (not state or state == 'active') then
  if redis.call('ZADD', KEYS[3], 'LT', 'CH', campaignEarliest, ARGV[1]) == 1 then
    redis.call('PUBLISH', ARGV[4], 'campaigns:' .. ARGV[5] .. ':' ..
      string.format('%.0f', campaignEarliest))
  end
end
return {added, changed, unchanged, optedOut}
