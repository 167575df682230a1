local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1], 'NX')
local ttl = redis.call('PTTL', KEYS[1])
return {n, ttl}
