-- The fields of an outbox message (records.ts, OutboundMessage) that a send reads, off its
-- JSON rather than decoded (each key and string value cjson meets is a Lua string): `id`,
-- `body` and `bodyJson` (its JSON string, quotes included), `compliance`, `holdUntil`,
-- `inDoubtSince`, `inDoubtUntil` and `loopGuard` ({max, windowMs}). A message with no contact
-- update is flat but for its loop guard, so each key found is its own: no JSON string holds an
-- unescaped quote. Any other message (a contact update, a body or id with an escape, a loop
-- guard written otherwise) is decoded whole, `bodyJson` added. Never encode the answer: it may
-- hold only these fields.
local function outboxMessageOf(json)
  if not string.find(json, '"contact":', 1, true) then
    local id = jsonField(json, 'id":"', '^([^"\\]*)"')
    local bodyJson = jsonField(json, 'body":', '^("[^"\\]*")')
    local guard = string.find(json, '"loopGuard":', 1, true)
    local max, windowMs = nil, nil
    if guard then
      max, windowMs = string.match(json, '^"loopGuard":{"max":(%d+),"windowMs":(%d+)}', guard)
    end
    if id and bodyJson and (max or not guard) then
      return {
        id = id,
        body = string.sub(bodyJson, 2, -2),
        bodyJson = bodyJson,
        compliance = jsonField(json, 'compliance":"', '^([%a%-]+)"'),
        holdUntil = tonumber(jsonField(json, 'holdUntil":', '^[%d%.eE+%-]+')),
        inDoubtSince = tonumber(jsonField(json, 'inDoubtSince":', '^[%d%.eE+%-]+')),
        inDoubtUntil = tonumber(jsonField(json, 'inDoubtUntil":', '^[%d%.eE+%-]+')),
        loopGuard = max and {max = tonumber(max), windowMs = tonumber(windowMs)} or nil,
      }
    end
  end
  local message = cjson.decode(json)
  if message.body ~= nil then
    message.bodyJson = cjson.encode(message.body)
  end
  return message
end
