-- The compare-and-swap of one chat's summary: redisstore's Store.Save.
-- Redis runs a script atomically, so no other command sees or changes the
-- key between the comparison and the write.
--
-- KEYS[1]  the chat's key: a hash with the fields digest and summary
-- ARGV[1]  the digest of prev, "" for the zero Summary (no key)
-- ARGV[2]  the digest of next, "" to delete the key (next is zero)
-- ARGV[3]  next as JSON, "" when deleting
-- ARGV[4]  the TTL in milliseconds, "0" for none
--
-- Returns 1 if it wrote next (or deleted the key), 0 if the stored digest
-- is not prev's: a conflict, and nothing changed. A key that is not a hash
-- (WRONGTYPE) or a hash without a digest is an error, never overwritten.
local key = KEYS[1]
local stored = redis.call('HGET', key, 'digest')
if not stored then
	if redis.call('EXISTS', key) == 1 then
		return redis.error_reply('ERR the key holds a hash without a digest field, not a summary')
	end
	stored = ''
end
if stored ~= ARGV[1] then
	return 0
end
if ARGV[2] == '' then
	redis.call('DEL', key)
	return 1
end
redis.call('HSET', key, 'digest', ARGV[2], 'summary', ARGV[3])
if ARGV[4] ~= '0' then
	redis.call('PEXPIRE', key, ARGV[4])
else
	redis.call('PERSIST', key)
end
return 1
