-- Changes counters in the same call as what they count (StepCommit.counters, recordSent's):
-- `json` is [[counter name, field, by, ttl], …] ('' for none), each hash at `prefix` + its name.
-- A change's TTL (ms) is kept from its last change; absent, `defaultTtl` (the retention); 0
-- keeps the hash with no TTL (a gauge: conversations in a state now), and a field counted down
-- to 0 is deleted, so the hash holds only what is there.
local function changeCounters(prefix, json, defaultTtl)
  if json == '' then
    return
  end
  for _, change in ipairs(cjson.decode(json)) do
    local key = prefix .. change[1]
    local count = redis.call('HINCRBY', key, change[2], change[3])
    local ttl = tonumber(change[4] or defaultTtl)
    if ttl == 0 then
      if count == 0 then
        redis.call('HDEL', key, change[2])
      end
    else
      redis.call('PEXPIRE', key, ttl)
    end
  end
end
