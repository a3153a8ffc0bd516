--[[
  Keeps a dead letter: newest first, at most `cap` of them, none older than the retention (the
  oldest are dropped from the tail), and the list itself expires the retention after the last
  one came, so a notification's phone numbers and texts are never kept for ever (DESIGN §2.7).

  Input:
    KEYS[1] the dead letters list
    ARGV[1] the letter's JSON (its `at` is its time, ms)
    ARGV[2] cap
    ARGV[3] the letter's time (ms)
    ARGV[4] retention (ms)
  Output:
    the number of letters kept
]]
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
local oldest = tonumber(ARGV[3]) - tonumber(ARGV[4])
while true do
  local last = redis.call('LINDEX', KEYS[1], -1)
  if not last then
    break
  end
  local ok, letter = pcall(cjson.decode, last)
  if ok and type(letter) == 'table' and type(letter.at) == 'number' and letter.at >= oldest then
    break
  end
  redis.call('RPOP', KEYS[1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return redis.call('LLEN', KEYS[1])
