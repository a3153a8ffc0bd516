--[[
  The sender's last look before POST /sms at the message it holds (read-outbox-7.lua with a
  token), in the usual case only: the claim still holds the outbox, its head is still that
  message, and lib/outbox-head.lua would answer it as it is (not in doubt, not held, the phone
  not suppressed, its loop guard not reached). Then pushes the lease to its new end, as
  read-outbox-7.lua does, and answers 'ok' without decoding the head or reading the conversation's
  value. Anything else but a lost claim answers 'look' and changes nothing: the caller reads
  the outbox with read-outbox-7.lua, which drops, moves or clears what it must.

  Input:
    KEYS[1] outbox lock
    KEYS[2] outbox list
    KEYS[3] suppression of the phone
    KEYS[4] recent sends to the phone (the loop guard's count)
    KEYS[5] outbox ready set of the partition
    ARGV[1] the claim's token
    ARGV[2] `"id":"<outbox message id>"`, as the message's JSON holds it
    ARGV[3] the lease's new end (ms): now + lease
    ARGV[4] conversation id
    ARGV[5] the message's checks: '' none (an opt-out confirmation, a contact update), 's' the
            suppression, 'sg' the suppression and its loop guard
    ARGV[6] the loop guard's max less one (the index of the oldest send it counts)
    ARGV[7] the oldest send time outside its window (ms): now - window
  Output:
    'ok' | 'look' | 'lost-lock'
]]
if redis.call('HGET', KEYS[1], 'token') ~= ARGV[1] then
  return 'lost-lock'
end
local head = redis.call('LINDEX', KEYS[2], 0)
if not head or not string.find(head, ARGV[2], 1, true) or
    string.find(head, '"inDoubt', 1, true) or string.find(head, '"holdUntil":', 1, true) then
  return 'look'
end
if ARGV[5] ~= '' then
  if redis.call('EXISTS', KEYS[3]) == 1 then
    return 'look'
  end
  if ARGV[5] == 'sg' then
    local oldest = redis.call('LINDEX', KEYS[4], ARGV[6])
    if oldest and tonumber(oldest) > tonumber(ARGV[7]) then
      return 'look'
    end
  end
end
-- A claimed outbox's ready time is its lease, in the answers' band (claim-8.lua).
redis.call('ZADD', KEYS[5], 'XX', ARGV[3], ARGV[4])
return 'ok'
