--[[
  Takes a phone off its location's suppression list and, in the same call, clears the
  `suppressed` flag of its conversation record when the record has it (`"suppressed":true`
  becomes `false`), so that the record and the list agree. An ended record then gets the
  retention's TTL, as an opt-in's commit would give it (a suppressed record is kept without
  one). The record's JSON is not decoded: cjson would change a bot's snapshot (`[]` would come
  back `{}`); the flag is found by walking the JSON's strings and brackets to its top level.
  With an event (the opt-in's, issue 24), queues it into the partition's event outbox when the
  phone was on the list.

  Input:
    KEYS[1] suppression of the phone
    KEYS[2] conversation value (conversation-value.ts)
    KEYS[3] outbound events of the partition (hash: id → event value, event-value.ts)
    KEYS[4] their due times (zset: id → due, ms)
    ARGV[1] an ended record's TTL (ms): the retention
    ARGV[2] the event's id, or '' for none
    ARGV[3] the event's value
    ARGV[4] when it is due (ms)
  Output:
    1 when the phone was on the list, 0 otherwise
]]

-- Where the value of the top-level member `name` of a JSON object starts, or nil.
-- JSON.stringify writes no spaces: a member is `"name":value`.
local function memberValueAt(json, name)
  local key = '"' .. name .. '":'
  local depth, i = 0, 1
  while true do
    local at = string.find(json, '[{}%[%]"]', i)
    if not at then
      return nil
    end
    local c = string.sub(json, at, at)
    if c == '"' then
      local close = at + 1
      while true do
        local q = string.find(json, '["\\]', close)
        if not q then
          return nil
        end
        if string.sub(json, q, q) == '\\' then
          close = q + 2
        else
          close = q
          break
        end
      end
      if depth == 1 and string.sub(json, at, close + 1) == key then
        return close + 2
      end
      i = close + 1
    else
      depth = depth + ((c == '{' or c == '[') and 1 or -1)
      i = at + 1
    end
  end
end

local removed = redis.call('DEL', KEYS[1])
if removed == 1 and ARGV[2] ~= '' and redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[3]) == 1 then
  redis.call('ZADD', KEYS[4], tonumber(ARGV[4]), ARGV[2])
end
local seq, applied, timers, messages, record, transcript =
  conversationParts(redis.call('GET', KEYS[2]))
if record and record ~= '' then
  local flag = memberValueAt(record, 'suppressed')
  if flag and string.match(string.sub(record, flag, flag + 4), '^true[,}]') then
    record = string.sub(record, 1, flag - 1) .. 'false' .. string.sub(record, flag + 4)
    local value = conversationValue(seq, applied, timers, messages, record, transcript)
    local status = memberValueAt(record, 'status')
    if status and string.sub(record, status, status + 7) == '"active"' then
      redis.call('SET', KEYS[2], value, 'KEEPTTL')
    else
      redis.call('SET', KEYS[2], value, 'PX', ARGV[1])
    end
  end
end
return removed
