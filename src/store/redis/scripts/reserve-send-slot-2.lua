--[[
  The send schedule of one location, shared by every process: each call reserves the next slot,
  `interval` ms after the previous one, so the requests of all processes together keep the rate
  however many there are. A pause (the service answered 429) moves the schedule past its end;
  slots reserved before it are checked again by their holders (mode 'check'). Time is Redis's
  own, so processes with skewed clocks still share one schedule.

  Input:
    KEYS[1] the location's next free slot (ms, may be fractional)
    KEYS[2] the location's pause end (ms)
    ARGV[1] mode: 'reserve' | 'pause' | 'check'
    ARGV[2] reserve: the interval (ms); pause: its length (ms)
  Output:
    reserve: ms to wait before sending (0: now); check: ms the pause still lasts; pause: 0
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
local slot = math.max(now, pausedUntil, tonumber(redis.call('GET', KEYS[1]) or '0'))
redis.call('SET', KEYS[1], tostring(slot + interval), 'PX', math.ceil(slot + interval - now) + 60000)
return math.ceil(slot - now)
