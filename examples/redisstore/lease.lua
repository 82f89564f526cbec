-- The lease of one chat's summarization: redisstore's Store.AcquireLease
-- (ARGV[3] = "acquire") and Store.ReleaseLease (ARGV[3] = "release").
-- Redis runs a script atomically, so two holders cannot both take a lease.
--
-- KEYS[1]  the chat's lease key: a string holding the holder
-- ARGV[1]  the holder
-- ARGV[2]  the time-to-live in milliseconds (acquire only)
-- ARGV[3]  "acquire" or "release"
--
-- acquire: returns 1 if the lease was free (no key: never taken, released,
-- or expired) or held by ARGV[1], and sets the key to ARGV[1] expiring
-- ARGV[2] ms from now; 0 if another holder has it, changing nothing.
-- release: deletes the key if ARGV[1] holds it, and returns 1 if so.
local key = KEYS[1]
local cur = redis.call('GET', key)
if ARGV[3] == 'release' then
	if cur == ARGV[1] then
		redis.call('DEL', key)
		return 1
	end
	return 0
end
if cur and cur ~= ARGV[1] then
	return 0
end
redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
return 1
