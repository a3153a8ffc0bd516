--[[
  The send schedule of one location, shared by every process: each call reserves the next `count`
  slots, `interval` ms apart, after the slots reserved before, so the requests of all processes
  together keep the rate however many there are (a process spends the slots of one call itself,
  see `limiterFromSchedule`). A pause (the service answered 429) moves the schedule past its end;
  slots reserved before it are checked again by their holders (mode 'check'). Time is Redis's
  own, so processes with skewed clocks still share one schedule.

  Input:
    KEYS[1] the location's next free slot (ms, may be fractional)
    KEYS[2] the location's pause end (ms)
    ARGV[1] mode: 'reserve' | 'pause' | 'check'
    ARGV[2] reserve: the interval (ms, may be fractional); pause: its length (ms)
    ARGV[3] reserve: how many consecutive slots (1 when absent)
  Output:
    reserve: ms to wait before the first slot, rounded up (0: now), the k-th (from 0) being
      k * interval after it; check: ms the pause still lasts; pause: 0
]]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local pausedUntil = tonumber(redis.call('GET', KEYS[2]) or '0')
local mode = ARGV[1]

if mode == 'check' then
  return math.max(0, pausedUntil - now)
end

if mode == 'pause' then
  local ms = tonumber(ARGV[2])
  local ends = now + ms
  if ends > pausedUntil then
    redis.call('SET', KEYS[2], ends, 'PX', math.ceil(ms))
  end
  local nextSlot = tonumber(redis.call('GET', KEYS[1]) or '0')
  if ends > nextSlot then
    redis.call('SET', KEYS[1], tostring(ends), 'PX', math.ceil(ms) + 60000)
  end
  return 0
end

local interval = tonumber(ARGV[2])
local count = tonumber(ARGV[3] or '1')
local first = math.max(now, pausedUntil, tonumber(redis.call('GET', KEYS[1]) or '0'))
local nextSlot = first + count * interval
-- %.17g keeps every digit: tostring's 14 would round a sub-ms step of a high rate away.
redis.call('SET', KEYS[1], string.format('%.17g', nextSlot), 'PX', math.ceil(nextSlot - now) + 60000)
return math.ceil(first - now)
