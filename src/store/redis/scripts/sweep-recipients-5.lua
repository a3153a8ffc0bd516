--[[
  After an import, or for a cancel: the recipients of some chunks of one campaign in one
  partition that the import did not name (generation below the given one) and still wait
  (scheduled or held) become skipped, `cancelled`; the rows without a phone that it did not name
  go (a row of the file is its line: the new file has its own). Each change with its counters.
  Then each chunk's and the campaign's place in the due index is set again.

  Input:
    KEYS[1] recipient chunk key prefix of the campaign in the partition (+ chunk number)
    KEYS[2] the campaign's chunks in the partition (zset: chunk → earliest due)
    KEYS[3] the campaign's recipient counters in the partition
    KEYS[4] the partition's due campaigns (zset: campaign id → earliest due)
    KEYS[5] the campaign's state in the partition
    ARGV[1] first chunk, ARGV[2] last chunk (inclusive)
    ARGV[3] generation: rows of a lower one are swept
    ARGV[4] campaign id
    ARGV[5] the campaign's chunks per partition
    ARGV[6] retention (ms): when none of its recipients waits any more, its keys here expire
    ARGV[7] '1' for a cancel: the rows without a phone stay (the campaign's account of its file)
  Output:
    {cancelled, removed}
]]
local generation = tonumber(ARGV[3])
local keepUnnamed = ARGV[7] == '1'
local cancelled, removed = 0, 0
for chunk = tonumber(ARGV[1]), tonumber(ARGV[2]) do
  local key = KEYS[1] .. chunk
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do
    local row = fields[i]
    local header, input = recipientParts(fields[i + 1])
    if (header.g or 0) < generation then
      if not string.match(row, '^%d+$') then
        if not keepUnnamed then
          redis.call('HDEL', key, row)
          moveRecipientCount(KEYS[3], recipientField(header), nil)
          removed = removed + 1
        end
      elseif header.s == 'scheduled' or header.s == 'held' then
        local from = recipientField(header)
        header.s = 'skipped'
        header.r = 'cancelled'
        redis.call('HSET', key, row, recipientValue(header, input))
        moveRecipientCount(KEYS[3], from, recipientField(header))
        cancelled = cancelled + 1
      end
    end
  end
  local earliest = chunkEarliest(key)
  if earliest then
    redis.call('ZADD', KEYS[2], earliest, chunk)
  else
    redis.call('ZREM', KEYS[2], chunk)
  end
end
campaignDue(KEYS[4], KEYS[2], KEYS[5], ARGV[4])
expireCampaignPart(KEYS[1], tonumber(ARGV[5]), KEYS[2], KEYS[5], KEYS[3], tonumber(ARGV[6]))
return {cancelled, removed}
