for i = 1, tonumber(ARGV[1]) do
  redis.call('INCR', KEYS[1])
end
return redis.call('GET', KEYS[1])
