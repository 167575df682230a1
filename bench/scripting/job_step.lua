local job = KEYS[3]
redis.call('LPUSH', KEYS[1], job)
local id = redis.call('RPOPLPUSH', KEYS[1], KEYS[2])
redis.call('SET', KEYS[4], ARGV[1], 'PX', 30000)
redis.call('HSET', job, 'processedOn', ARGV[2], 'token', ARGV[1])
local attempts = redis.call('HINCRBY', job, 'attemptsMade', 1)
redis.call('ZADD', KEYS[5], ARGV[2], id)
redis.call('ZREM', KEYS[6], id)
local limit = redis.call('HGET', KEYS[7], 'concurrency')
redis.call('HINCRBY', KEYS[7], 'active', 1)
redis.call('LREM', KEYS[2], 1, id)
return {id, attempts}
