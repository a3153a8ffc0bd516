--[[
  Puts a chunk the runner claimed back in the due index at the earliest time one of its
  recipients waits for (or takes it out), and its campaign at its earliest chunk.

  Input:
    KEYS[1] the chunk (hash: row → recipient value)
    KEYS[2] the campaign's chunks in the partition (zset: chunk → earliest due)
    KEYS[3] the partition's due campaigns (zset: campaign id → earliest due)
    KEYS[4] the campaign's state in the partition
    ARGV[1] campaign id
    ARGV[2] chunk number
  Output:
    the campaign's next due time in the partition (ms), or '' when none waits or it does not fire
]]
local earliest = chunkEarliest(KEYS[1])
if earliest then
  redis.call('ZADD', KEYS[2], earliest, ARGV[2])
else
  redis.call('ZREM', KEYS[2], ARGV[2])
end
local due = campaignDue(KEYS[3], KEYS[2], KEYS[4], ARGV[1])
if not due then
  return ''
end
return string.format('%.0f', due)
