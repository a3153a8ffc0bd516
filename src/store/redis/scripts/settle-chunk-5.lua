--[[
  Puts a chunk the runner claimed back in the due index at the earliest time one of its
  recipients waits for (or takes it out), and its campaign at its earliest chunk.

  When none of the campaign's recipients waits any more in the partition, its keys there expire
  after the retention.

  Input:
    KEYS[1] recipient chunk key prefix of the campaign in the partition (+ chunk number)
    KEYS[2] the campaign's chunks in the partition (zset: chunk → earliest due)
    KEYS[3] the partition's due campaigns (zset: campaign id → earliest due)
    KEYS[4] the campaign's state in the partition
    KEYS[5] the campaign's recipient counters in the partition
    ARGV[1] campaign id
    ARGV[2] chunk number
    ARGV[3] the campaign's chunks per partition
    ARGV[4] retention (ms)
  Output:
    the campaign's next due time in the partition (ms), or '' when none waits or it does not fire
]]
local earliest = chunkEarliest(KEYS[1] .. ARGV[2])
if earliest then
  redis.call('ZADD', KEYS[2], earliest, ARGV[2])
else
  redis.call('ZREM', KEYS[2], ARGV[2])
end
local due = campaignDue(KEYS[3], KEYS[2], KEYS[4], ARGV[1])
expireCampaignPart(KEYS[1], tonumber(ARGV[3]), KEYS[2], KEYS[4], KEYS[5], tonumber(ARGV[4]))
if not due then
  return ''
end
return string.format('%.0f', due)
