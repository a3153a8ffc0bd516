-- A stored message record (message-value.ts): `<rank><sent>` then the record JSON. Answers the
-- rank (a number), whether `recordSent` wrote it (a boolean) and the JSON, or nil for none.
local function messageParts(value)
  if not value then
    return nil
  end
  return tonumber(string.sub(value, 1, 1)), string.sub(value, 2, 2) == '1', string.sub(value, 3)
end
