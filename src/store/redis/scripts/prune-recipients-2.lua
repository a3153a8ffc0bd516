--[[
  Drops the recipients of some chunks of one campaign in one partition that ended (started,
  skipped, failed) at a time before the one given, each with its counter. Waiting ones
  (scheduled, held) stay, so the due index needs no change: a chunk it empties is gone, and the
  runner settles a chunk it finds empty. The API's keyed starts are pruned so past the retention.

  Input:
    KEYS[1] recipient chunk key prefix of the campaign in the partition (+ chunk number)
    KEYS[2] the campaign's recipient counters in the partition
    ARGV[1] first chunk, ARGV[2] last chunk (inclusive)
    ARGV[3] ended before (ms): a row whose time (`d`) is earlier goes
  Output:
    the number of rows dropped
]]
local before = tonumber(ARGV[3])
local pruned = 0
for chunk = tonumber(ARGV[1]), tonumber(ARGV[2]) do
  local key = KEYS[1] .. chunk
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do
    local header = recipientParts(fields[i + 1])
    if header.s ~= 'scheduled' and header.s ~= 'held' and header.d and
        tonumber(header.d) < before then
      redis.call('HDEL', key, fields[i])
      moveRecipientCount(KEYS[2], recipientField(header), nil)
      pruned = pruned + 1
    end
  end
end
return pruned
