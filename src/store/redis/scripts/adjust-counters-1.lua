--[[
  Corrects counters outside a step (the activity reconciliation, `adjustCounters`): the changes
  of lib/change-counters.lua, in one partition's counters, atomically (a gauge's field that
  comes to 0 is deleted, never a field a commit has just moved away from 0).
    KEYS[1] the partition's counters prefix
    ARGV[1] counter changes JSON ([[name, field, by, ttl], …])
    ARGV[2] default TTL (ms): the retention
]]
changeCounters(KEYS[1], ARGV[1], ARGV[2])
return 1
