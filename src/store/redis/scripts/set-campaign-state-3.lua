--[[
  A campaign's state in one partition: 'active' fires, 'paused' and 'cancelled' do not (every
  fire-recipients call of the campaign checks it). Active again, the campaign is put back in the
  partition's due index at its earliest chunk, and the runners hear of it.

  Input:
    KEYS[1] the campaign's state in the partition
    KEYS[2] the partition's due campaigns (zset: campaign id → earliest due)
    KEYS[3] the campaign's chunks in the partition (zset: chunk → earliest due)
    ARGV[1] 'active' | 'paused' | 'cancelled'
    ARGV[2] campaign id
    ARGV[3] ready channel
    ARGV[4] partition number
  Output:
    the campaign's next due time in the partition (ms), or ''
]]
redis.call('SET', KEYS[1], ARGV[1])
local due = campaignDue(KEYS[2], KEYS[3], KEYS[1], ARGV[2])
if not due then
  return ''
end
redis.call('PUBLISH', ARGV[3], 'campaigns:' .. ARGV[4] .. ':' .. string.format('%.0f', due))
return string.format('%.0f', due)
