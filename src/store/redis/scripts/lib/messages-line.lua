-- A conversation value's messages line (conversation-value.ts), `[["<sms id>",<rank>,<sent>,{record}],…]`,
-- read and changed as text. Decoding the line's records with cjson and encoding them again made
-- one Lua string per key and per value, and turned each price back and forth through text: an
-- EVAL loop of record-sent's line work took about 30 µs that way, 6 µs as text.
--
-- It is safe because a record's fields are scalars (records.ts, MessageRecord): `[` appears in
-- the line only at the start of the line and of each entry, and `],["`, which no JSON string can
-- hold (a `"` inside a string is always escaped), only between two entries. An sms id of other
-- than plain characters is left to the decoding path, as is any line these patterns do not fit.

-- Whether `id` is written in JSON as it is (letters, digits, `_:-.`).
local function plainId(id)
  return not string.find(id, '[^%w_:%-%.]')
end

-- An entry's text, `["<sms id>",<rank>,<sent>,{record}]`, as its sms id (plain characters
-- only), rank, sent flag and record JSON; nil when it is written otherwise.
local function entryParts(text)
  return string.match(text, '^%["([%w_:%-%.]*)",(%d),([01]),({.*})%]$')
end

-- The entry of sms `smsId` (a plain id) in a messages line: its first and last positions in
-- the line, its rank (a number), its sent flag ('1' or '0') and its record's JSON; nil when
-- the line holds no entry of it; false when the line cannot be read as text (decode it).
local function messagesEntryAt(line, smsId)
  if not line or line == '' then
    return nil
  end
  local from = string.find(line, '["' .. smsId .. '",', 1, true)
  if not from then
    return nil
  end
  local boundary = string.find(line, '],["', from, true)
  local last = boundary or (#line - 1)
  local _, rank, sent, record = entryParts(string.sub(line, from, last))
  if not rank then
    return false
  end
  return from, last, tonumber(rank), sent, record
end

-- The stored record (message-value.ts) an entry's text stands for: `<rank><sent>{record}`,
-- the record less `v` and the location (the conversation's), as storedMessage answers it.
local function storedMessageText(rank, sent, record)
  return rank .. sent .. record
end

-- The same record as a key of its own holds it (spilledMessage): `v` and the location put back.
local function spilledMessageText(rank, sent, record, location)
  local head = '{"v":1,"l":' .. cjson.encode(location)
  if record == '{}' then
    return rank .. sent .. head .. '}'
  end
  return rank .. sent .. head .. ',' .. string.sub(record, 2)
end

-- A messages line with `entry` (an entry's JSON text) added last, keeping the newest `cap`:
-- the oldest past it are spilled, each set at `messagePrefix` + its sms id for `ttl` seconds
-- with `location` put back in it. Answers the new line, or nil when the line cannot be read as
-- text (nothing is written then: decode it).
local function messagesLineWith(line, entry, cap, messagePrefix, location, ttl)
  if not line or line == '' or line == '[]' then
    return '[' .. entry .. ']'
  end
  if string.sub(line, 1, 1) ~= '[' or string.sub(line, -1) ~= ']' then
    return nil
  end
  -- Where each entry ends (its `]`), oldest first.
  local ends = {}
  local at = 2
  while true do
    local boundary = string.find(line, '],["', at, true)
    if not boundary then
      break
    end
    ends[#ends + 1] = boundary
    at = boundary + 3
  end
  ends[#ends + 1] = #line - 1
  local drop = #ends + 1 - cap
  local spills = {}
  local from = 2
  for i = 1, drop do
    local id, rank, sent, record = entryParts(string.sub(line, from, ends[i]))
    if not id then
      return nil
    end
    spills[#spills + 1] = {id, spilledMessageText(rank, sent, record, location)}
    from = ends[i] + 2
  end
  for _, spill in ipairs(spills) do
    redis.call('SET', messagePrefix .. spill[1], spill[2], 'EX', ttl)
  end
  if drop >= #ends then
    return '[' .. entry .. ']'
  end
  return '[' .. string.sub(line, from, -2) .. ',' .. entry .. ']'
end
