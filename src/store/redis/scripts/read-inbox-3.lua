--[[
  Reads a conversation's record, the head of its mailbox and the record of the message the head
  is about (the one a reply answers, or the one a status reports on).

  Input:
    KEYS[1] conversation record
    KEYS[2] mailbox
    KEYS[3] message record key prefix (+ sms id)
  Output:
    {stored conversation value (less its transcript), head event JSON, stored origin message record}, '' for each one missing
]]
local record = conversationHead(KEYS[1]) or ''
local head = redis.call('LINDEX', KEYS[2], 0) or ''
return {record, head, originOf(head, record, KEYS[3])}
