-- Changes counters in the same call as what they count (StepCommit.counters, recordSent's).
-- A change's TTL (ms) is kept from its last change; absent, `defaultTtl` (the retention); 0
-- keeps the hash with no TTL (a gauge: conversations in a state now), and a field counted down
-- to 0 is deleted, so the hash holds only what is there.
local function changeCounter(key, field, by, ttl)
  local count = redis.call('HINCRBY', key, field, by)
  if tonumber(ttl) == 0 then
    if count == 0 then
      redis.call('HDEL', key, field)
    end
  else
    redis.call('PEXPIRE', key, ttl)
  end
end

-- `json` is [[counter name, field, by, ttl], …] ('' for none), each hash at `prefix` + its name.
local function changeCounters(prefix, json, defaultTtl)
  if json == '' then
    return
  end
  for _, change in ipairs(cjson.decode(json)) do
    changeCounter(prefix .. change[1], change[2], change[3], change[4] or defaultTtl)
  end
end

-- The same changes passed as arguments rather than JSON (nothing decoded): `count` of them in
-- `args` from `from` on, four each: counter name, field, by, TTL ('' for `defaultTtl`).
local function changeCounterArgs(prefix, args, from, count, defaultTtl)
  for i = from, from + 4 * (count - 1), 4 do
    local ttl = args[i + 3]
    changeCounter(prefix .. args[i], args[i + 1], args[i + 2], ttl == '' and defaultTtl or ttl)
  end
end
