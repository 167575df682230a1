// The cmsgpack library (src/scripting/lib_cmsgpack.hpp) against
// redis-server 7.0.15: every snippet below ran in EVAL on the real server
// and its answer is the expectation (see lua_libs_fixture.hpp for the
// prelude that renders values). Then what a server cannot show: how the
// library is registered, round trips of generated values, and that errors
// raised from inside it (a longjmp through our frames) leave the state
// usable and leak nothing.

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "lua_libs_fixture.hpp"

namespace lawnkv::test {

namespace {

// cmsgpack.pack: integers by size, floats (32 bits when exact), NaN, infinities, booleans, nil, strings by length.
const LuaCase kPackScalars[] = {
    {R"lua(return hex(cmsgpack.pack({1,2,3})))lua",
     R"lua($93010203)lua"},
    {R"lua(return hex(cmsgpack.pack(0, 1, 127, 128, 255, 256, 65535, 65536, 2^32-1, 2^32, 2^53, 2^63-1024)))lua",
     R"lua($00017fcc80ccffcd0100cdffffce00010000ceffffffffcf0000000100000000cf0020000000000000cf7ffffffffffffc00)lua"},
    {R"lua(return hex(cmsgpack.pack(-1, -32, -33, -128, -129, -32768, -32769, -2^31, -2^31-1, -2^53, -2^63)))lua",
     R"lua($ffe0d0dfd080d1ff7fd18000d2ffff7fffd280000000d3ffffffff7fffffffd3ffe0000000000000d38000000000000000)lua"},
    {R"lua(return hex(cmsgpack.pack(0/0, 1/0, -1/0, 2^63, 2^64, 1e300, -0.0, 0.1, 1.5, -1.5, 1e-300, 3.4028234663852886e38, 16777217)))lua",
     R"lua($cbfff8000000000000ca7f800000caff800000ca5f000000ca5f800000cb7e37e43c8800759c00cb3fb999999999999aca3fc00000cabfc00000cb01a56e1fc2f8f359ca7f7fffffce01000001)lua"},
    {R"lua(return hex(cmsgpack.pack(2^53+1, 2^62, 2^63-1, 1e18, 123456789.5)))lua",
     R"lua($cf0020000000000000cf4000000000000000ca5f000000cf0de0b6b3a7640000cb419d6f3456000000)lua"},
    {R"lua(return hex(cmsgpack.pack(true, false, nil)))lua",
     R"lua($c3c2c0)lua"},
    {R"lua(return hex(cmsgpack.pack(nil)))lua",
     R"lua($c0)lua"},
    {R"lua(return hex(cmsgpack.pack(type, coroutine.create(function() end), nil)))lua",
     R"lua($c0c0c0)lua"},
    {R"lua(return hex(cmsgpack.pack('')))lua",
     R"lua($a0)lua"},
    {R"lua(return hex(cmsgpack.pack('abc')))lua",
     R"lua($a3616263)lua"},
    {R"lua(return hex(cmsgpack.pack(string.rep('a', 31))))lua",
     R"lua($bf61616161616161616161616161616161616161616161616161616161616161)lua"},
    {R"lua(return hex(cmsgpack.pack(string.rep('a', 32))))lua",
     R"lua($d9206161616161616161616161616161616161616161616161616161616161616161)lua"},
    {R"lua(return hex(string.sub(cmsgpack.pack(string.rep('a', 255)), 1, 3)))lua",
     R"lua($d9ff61)lua"},
    {R"lua(return hex(string.sub(cmsgpack.pack(string.rep('a', 256)), 1, 4)))lua",
     R"lua($da010061)lua"},
    {R"lua(return hex(string.sub(cmsgpack.pack(string.rep('a', 65535)), 1, 4)))lua",
     R"lua($daffff61)lua"},
    {R"lua(return hex(string.sub(cmsgpack.pack(string.rep('a', 65536)), 1, 6)))lua",
     R"lua($db0001000061)lua"},
    {R"lua(return string.len(cmsgpack.pack(string.rep('a', 65536))))lua",
     R"lua(:65541)lua"},
    {R"lua(return string.len(cmsgpack.pack(string.rep('a', 100000), string.rep('b', 70000))))lua",
     R"lua(:170010)lua"},
    {R"lua(return hex(cmsgpack.pack('a\0b')))lua",
     R"lua($a3610062)lua"},
};

// cmsgpack.pack: arrays (keys exactly 1..n) against maps, headers by count, key types.
const LuaCase kPackTables[] = {
    {R"lua(return hex(cmsgpack.pack({})))lua",
     R"lua($90)lua"},
    {R"lua(return hex(cmsgpack.pack({{}})))lua",
     R"lua($9190)lua"},
    {R"lua(return hex(cmsgpack.pack({1, 'a', true, {2}})))lua",
     R"lua($9401a161c39102)lua"},
    {R"lua(return hex(cmsgpack.pack({1, nil, 3})))lua",
     R"lua($8201010303)lua"},
    {R"lua(return hex(cmsgpack.pack({[1]=1, [2]=2, [4]=4})))lua",
     R"lua($83010102020404)lua"},
    {R"lua(return hex(cmsgpack.pack({[2]=2})))lua",
     R"lua($810202)lua"},
    {R"lua(return hex(cmsgpack.pack({[0]=0})))lua",
     R"lua($810000)lua"},
    {R"lua(return hex(cmsgpack.pack({[-1]=1})))lua",
     R"lua($81ff01)lua"},
    {R"lua(return hex(cmsgpack.pack({[1.5]=1})))lua",
     R"lua($81ca3fc0000001)lua"},
    {R"lua(return hex(cmsgpack.pack({[2^31]=1})))lua",
     R"lua($81ce8000000001)lua"},
    {R"lua(return hex(cmsgpack.pack({[2^31-1]=1})))lua",
     R"lua($81ce7fffffff01)lua"},
    {R"lua(return hex(cmsgpack.pack({a=1})))lua",
     R"lua($81a16101)lua"},
    {R"lua(return hex(cmsgpack.pack({a={b={c=1}}})))lua",
     R"lua($81a16181a16281a16301)lua"},
    {R"lua(return hex(cmsgpack.pack({[true]=false})))lua",
     R"lua($81c3c2)lua"},
    {R"lua(return hex(cmsgpack.pack({[{}]=1})))lua",
     R"lua($819001)lua"},
    {R"lua(return hex(cmsgpack.pack({1, 2, x=3})))lua",
     R"lua($8301010202a17803)lua"},
    {R"lua(return hex(cmsgpack.pack({['1']=1})))lua",
     R"lua($81a13101)lua"},
    {R"lua(return hex(cmsgpack.pack({a=1, b=2, c=3})))lua",
     R"lua($83a16101a16303a16202)lua"},
    {R"lua(return hex(cmsgpack.pack({10,20,30,40,50,60,70,80,90,100,110,120,130,140,150})))lua",
     R"lua($9f0a141e28323c46505a646e78cc82cc8ccc96)lua"},
    {R"lua(local t = {} for i = 1, 16 do t[i] = i end return hex(cmsgpack.pack(t)))lua",
     R"lua($dc00100102030405060708090a0b0c0d0e0f10)lua"},
    {R"lua(local t = {} for i = 1, 65535 do t[i] = 0 end return hex(string.sub(cmsgpack.pack(t), 1, 4)))lua",
     R"lua($dcffff00)lua"},
    {R"lua(local t = {} for i = 1, 65536 do t[i] = 0 end return hex(string.sub(cmsgpack.pack(t), 1, 6)))lua",
     R"lua($dd0001000000)lua"},
    {R"lua(local t = {} for i = 1, 16 do t['k' .. i] = i end return hex(string.sub(cmsgpack.pack(t), 1, 3)))lua",
     R"lua($de0010)lua"},
    {R"lua(local t = {} for i = 1, 65536 do t['k' .. i] = i end return hex(string.sub(cmsgpack.pack(t), 1, 5)))lua",
     R"lua($df00010000)lua"},
};

// cmsgpack.pack: tables past 16 levels become nil (cycles too), metatables ignored, argument counts.
const LuaCase kPackLimits[] = {
    {R"lua(local t = {} for i = 1, 20 do t = {t} end return hex(cmsgpack.pack(t)))lua",
     R"lua($91919191919191919191919191919191c0)lua"},
    {R"lua(local t = {} for i = 1, 15 do t = {t} end return hex(cmsgpack.pack(t)))lua",
     R"lua($91919191919191919191919191919190)lua"},
    {R"lua(local t = {} for i = 1, 16 do t = {t} end return hex(cmsgpack.pack(t)))lua",
     R"lua($91919191919191919191919191919191c0)lua"},
    {R"lua(local t = {} for i = 1, 16 do t = {x=t} end return hex(cmsgpack.pack(t)))lua",
     R"lua($81a17881a17881a17881a17881a17881a17881a17881a17881a17881a17881a17881a17881a17881a17881a17881a178c0)lua"},
    {R"lua(local t = {} t[1] = t return hex(cmsgpack.pack(t)))lua",
     R"lua($91919191919191919191919191919191c0)lua"},
    {R"lua(local t = {} t.self = t return hex(cmsgpack.pack(t)))lua",
     R"lua($81a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c6681a473656c66c0)lua"},
    {R"lua(local k = {} for i = 1, 15 do k = {k} end return hex(cmsgpack.pack({[k]=1})))lua",
     R"lua($81919191919191919191919191919191c001)lua"},
    {R"lua(return hex(cmsgpack.pack(setmetatable({}, {__index=function() return 1 end}))))lua",
     R"lua($90)lua"},
    {R"lua(return hex(cmsgpack.pack(setmetatable({1,2}, {__index=function() return 1 end, __len=function() return 5 end}))))lua",
     R"lua($920102)lua"},
    {R"lua(return hex(cmsgpack.pack(1, 'a', {})))lua",
     R"lua($01a16190)lua"},
    {R"lua(return hex(cmsgpack.pack()))lua",
     R"lua(error: user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.))lua"},
    {R"lua(return hex(cmsgpack.pack(unpack({1,2,3}))))lua",
     R"lua($010203)lua"},
    {R"lua(local t = {} for i = 1, 3000 do t[i] = i end return string.len(cmsgpack.pack(unpack(t))))lua",
     R"lua(:8618)lua"},
    {R"lua(local t = {} for i = 1, 4500 do t[i] = i end return string.len(cmsgpack.pack(unpack(t))))lua",
     R"lua(error: user_script:1: bad argument #0 to 'pack' (Too many arguments for MessagePack pack.))lua"},
    {R"lua(local t = {} for i = 1, 7900 do t[i] = i end return string.len(cmsgpack.pack(unpack(t))))lua",
     R"lua(error: user_script:1: bad argument #0 to 'pack' (Too many arguments for MessagePack pack.))lua"},
};

// cmsgpack.unpack: every scalar format, uint 64 past 2^63 negative, bin/ext/0xc1 rejected, short input.
const LuaCase kUnpackScalars[] = {
    {R"lua(return all(cmsgpack.unpack(cmsgpack.pack({1,2,3}))))lua",
     R"lua(${1=1,2=2,3=3})lua"},
    {R"lua(return all(cmsgpack.unpack(cmsgpack.pack(1, 'a', true, false, nil, 2.5, {x={1}}))))lua",
     R"lua($1 'a' true false nil 2.5 {'x'={1=1}})lua"},
    {R"lua(return all(cmsgpack.unpack('')))lua",
     R"lua($)lua"},
    {R"lua(return all(cmsgpack.unpack('\192')))lua",
     R"lua($nil)lua"},
    {R"lua(return all(cmsgpack.unpack('\1\2\3')))lua",
     R"lua($1 2 3)lua"},
    {R"lua(return all(cmsgpack.unpack('\204\255')))lua",
     R"lua($255)lua"},
    {R"lua(return all(cmsgpack.unpack('\204')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\205\1\0')))lua",
     R"lua($256)lua"},
    {R"lua(return all(cmsgpack.unpack('\206\255\255\255\255')))lua",
     R"lua($4294967295)lua"},
    {R"lua(return all(cmsgpack.unpack('\207\0\0\0\1\0\0\0\0')))lua",
     R"lua($4294967296)lua"},
    {R"lua(return all(cmsgpack.unpack('\207\255\255\255\255\255\255\255\255')))lua",
     R"lua($-1)lua"},
    {R"lua(return all(cmsgpack.unpack('\207\128\0\0\0\0\0\0\0')))lua",
     R"lua($-9.2233720368547758e+18)lua"},
    {R"lua(return all(cmsgpack.unpack('\207\127\255\255\255\255\255\255\255')))lua",
     R"lua($9.2233720368547758e+18)lua"},
    {R"lua(return all(cmsgpack.unpack('\208\128')))lua",
     R"lua($-128)lua"},
    {R"lua(return all(cmsgpack.unpack('\209\128\1')))lua",
     R"lua($-32767)lua"},
    {R"lua(return all(cmsgpack.unpack('\209\255\0')))lua",
     R"lua($-256)lua"},
    {R"lua(return all(cmsgpack.unpack('\210\128\0\0\0')))lua",
     R"lua($-2147483648)lua"},
    {R"lua(return all(cmsgpack.unpack('\211\128\0\0\0\0\0\0\0')))lua",
     R"lua($-9.2233720368547758e+18)lua"},
    {R"lua(return all(cmsgpack.unpack('\211\255\255\255\255\255\255\255\254')))lua",
     R"lua($-2)lua"},
    {R"lua(return all(cmsgpack.unpack('\224\255')))lua",
     R"lua($-32 -1)lua"},
    {R"lua(return all(cmsgpack.unpack('\202\63\192\0\0')))lua",
     R"lua($1.5)lua"},
    {R"lua(return all(cmsgpack.unpack('\202\127\192\0\0')))lua",
     R"lua($nan)lua"},
    {R"lua(return all(cmsgpack.unpack('\203\63\185\153\153\153\153\153\154')))lua",
     R"lua($0.10000000000000001)lua"},
    {R"lua(return all(cmsgpack.unpack('\203\63\185')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\195\194')))lua",
     R"lua($true false)lua"},
    {R"lua(return all(cmsgpack.unpack('\163abc')))lua",
     R"lua($'abc')lua"},
    {R"lua(return all(cmsgpack.unpack('\163ab')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\160')))lua",
     R"lua($'')lua"},
    {R"lua(return all(cmsgpack.unpack('\217\3abc')))lua",
     R"lua($'abc')lua"},
    {R"lua(return all(cmsgpack.unpack('\217\3ab')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\217')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\218\0\3abc')))lua",
     R"lua($'abc')lua"},
    {R"lua(return all(cmsgpack.unpack('\218\0')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\219\0\0\0\3abc')))lua",
     R"lua($'abc')lua"},
    {R"lua(return all(cmsgpack.unpack('\219\255\255\255\255abc')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\196\3abc')))lua",
     R"lua(error: user_script:1: Bad data format in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\197\0\3abc')))lua",
     R"lua(error: user_script:1: Bad data format in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\198\0\0\0\3abc')))lua",
     R"lua(error: user_script:1: Bad data format in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\193')))lua",
     R"lua(error: user_script:1: Bad data format in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\199\1\1a')))lua",
     R"lua(error: user_script:1: Bad data format in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\212\1\1')))lua",
     R"lua(error: user_script:1: Bad data format in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\216\1')))lua",
     R"lua(error: user_script:1: Bad data format in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\1\193')))lua",
     R"lua(error: user_script:1: Bad data format in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\145\193')))lua",
     R"lua(error: user_script:1: Bad data format in input.)lua"},
};

// cmsgpack.unpack: arrays and maps, nil and NaN keys, deep nesting and too many results.
const LuaCase kUnpackContainers[] = {
    {R"lua(return all(cmsgpack.unpack('\144')))lua",
     R"lua(${})lua"},
    {R"lua(return all(cmsgpack.unpack('\128')))lua",
     R"lua(${})lua"},
    {R"lua(return all(cmsgpack.unpack('\147\1\2\3')))lua",
     R"lua(${1=1,2=2,3=3})lua"},
    {R"lua(return all(cmsgpack.unpack('\147\1\2')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\147\1\192\3')))lua",
     R"lua(${1=1,3=3})lua"},
    {R"lua(return all(cmsgpack.unpack('\220\0\2\1\2')))lua",
     R"lua(${1=1,2=2})lua"},
    {R"lua(return all(cmsgpack.unpack('\220\0')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\221\0\0\0\2\1\2')))lua",
     R"lua(${1=1,2=2})lua"},
    {R"lua(return all(cmsgpack.unpack('\221\255\255\255\255\1\2')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\129\161a\1')))lua",
     R"lua(${'a'=1})lua"},
    {R"lua(return all(cmsgpack.unpack('\129\161a')))lua",
     R"lua(error: user_script:1: Missing bytes in input.)lua"},
    {R"lua(return all(cmsgpack.unpack('\129\192\1')))lua",
     R"lua(error: table index is nil)lua"},
    {R"lua(return all(cmsgpack.unpack('\129\203\255\248\0\0\0\0\0\0\1')))lua",
     R"lua(error: table index is NaN)lua"},
    {R"lua(return all(cmsgpack.unpack('\129\1\192')))lua",
     R"lua(${})lua"},
    {R"lua(return all(cmsgpack.unpack('\130\1\2\1\3')))lua",
     R"lua(${1=3})lua"},
    {R"lua(return all(cmsgpack.unpack('\222\0\1\1\2')))lua",
     R"lua(${1=2})lua"},
    {R"lua(return all(cmsgpack.unpack('\223\0\0\0\1\1\2')))lua",
     R"lua(${1=2})lua"},
    {R"lua(return all(cmsgpack.unpack('\129\145\1\2')))lua",
     R"lua(${{1=1}=2})lua"},
    {R"lua(return all(pcall(cmsgpack.unpack, string.rep('\145', 10000) .. '\1')))lua",
     R"lua($false 'stack overflow (in function mp_decode_to_lua_array)')lua"},
    {R"lua(return all(cmsgpack.unpack(string.rep('\145', 10000) .. '\1')))lua",
     R"lua(error: user_script:1: stack overflow (in function mp_decode_to_lua_array))lua"},
    {R"lua(return select('#', cmsgpack.unpack(string.rep('\1', 7000))))lua",
     R"lua(:7000)lua"},
    {R"lua(return select('#', cmsgpack.unpack(string.rep('\1', 9000))))lua",
     R"lua(error: user_script:1: stack overflow (too many return values at once; use unpack_one or unpack_limit instead.))lua"},
};

// cmsgpack.unpack, unpack_one, unpack_limit: arguments, offsets, limits and their error texts.
const LuaCase kUnpackArguments[] = {
    {R"lua(return all(cmsgpack.unpack()))lua",
     R"lua(error: user_script:1: bad argument #1 to 'unpack' (string expected, got no value))lua"},
    {R"lua(return all(cmsgpack.unpack(5)))lua",
     R"lua($53)lua"},
    {R"lua(return all(cmsgpack.unpack({})))lua",
     R"lua(error: user_script:1: bad argument #1 to 'unpack' (string expected, got table))lua"},
    {R"lua(return all(cmsgpack.unpack('\1', 'x')))lua",
     R"lua($1)lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\2\3')))lua",
     R"lua($1 1)lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\2\3', 1)))lua",
     R"lua($2 2)lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\2\3', 2)))lua",
     R"lua($-1 3)lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\2\3', 3)))lua",
     R"lua($-1)lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\2\3', 4)))lua",
     R"lua(error: user_script:1: Start offset 4 greater than input length 3.)lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\2\3', -1)))lua",
     R"lua(error: user_script:1: Invalid request to unpack with offset of -1 and limit of 3.)lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\2\3', 'x')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack_one' (number expected, got string))lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\2\3', '1')))lua",
     R"lua($2 2)lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\2\3', 1.7)))lua",
     R"lua($2 2)lua"},
    {R"lua(return all(cmsgpack.unpack_one('')))lua",
     R"lua($-1)lua"},
    {R"lua(return all(cmsgpack.unpack_one()))lua",
     R"lua(error: user_script:1: bad argument #1 to 'unpack_one' (string expected, got no value))lua"},
    {R"lua(return all(cmsgpack.unpack_one(nil, 1)))lua",
     R"lua(error: user_script:1: bad argument #1 to 'unpack_one' (string expected, got nil))lua"},
    {R"lua(return all(cmsgpack.unpack_one('\193')))lua",
     R"lua(error: user_script:1: Bad data format in input.)lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\193')))lua",
     R"lua($1 1)lua"},
    {R"lua(return all(cmsgpack.unpack_one('\1\2\3', 0, 'extra')))lua",
     R"lua($1 1)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 2)))lua",
     R"lua($2 1 2)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 3)))lua",
     R"lua($-1 1 2 3)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 5)))lua",
     R"lua($-1 1 2 3)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 0)))lua",
     R"lua($1 2 3)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 0, 0)))lua",
     R"lua($1 2 3)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 0, 1)))lua",
     R"lua($1)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 0, 3)))lua",
     R"lua($-1)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 2, 1)))lua",
     R"lua($-1 2 3)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 2, 2)))lua",
     R"lua($-1 3)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', -1)))lua",
     R"lua(error: user_script:1: Invalid request to unpack with offset of 0 and limit of 3.)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', -1, 7)))lua",
     R"lua(error: user_script:1: Invalid request to unpack with offset of 7 and limit of 3.)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 1, -5)))lua",
     R"lua(error: user_script:1: Invalid request to unpack with offset of -5 and limit of 3.)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 1, 9)))lua",
     R"lua(error: user_script:1: Start offset 9 greater than input length 3.)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack_limit' (number expected, got no value))lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 'a')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack_limit' (number expected, got string))lua"},
    {R"lua(return all(cmsgpack.unpack_limit()))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack_limit' (number expected, got no value))lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 2^40)))lua",
     R"lua($-1 1 2 3)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 1, 2^40)))lua",
     R"lua(error: user_script:1: Start offset 0 greater than input length 3.)lua"},
    {R"lua(return all(cmsgpack.unpack_limit('\1\2\3', 1, -2^40)))lua",
     R"lua(error: user_script:1: Invalid request to unpack with offset of 0 and limit of 3.)lua"},
};

// The library table, round trips, map order, errors caught by pcall.
const LuaCase kLibraryAndRoundTrips[] = {
    {R"lua(return all(cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, cmsgpack._DESCRIPTION))lua",
     R"lua($'cmsgpack' 'lua-cmsgpack 0.4.0' 'Copyright (C) 2012, Salvatore Sanfilippo' 'MessagePack C implementation for Lua')lua"},
    {R"lua(return all(type(cmsgpack.pack), type(cmsgpack.unpack), type(cmsgpack.unpack_one), type(cmsgpack.unpack_limit)))lua",
     R"lua($'function' 'function' 'function' 'function')lua"},
    {R"lua(local n = 0 for k in pairs(cmsgpack) do n = n + 1 end return all(n))lua",
     R"lua($8)lua"},
    {R"lua(local ks = {} for k in pairs(cmsgpack) do ks[#ks+1] = k end return table.concat(ks, ','))lua",
     R"lua($_DESCRIPTION,pack,_NAME,unpack,_COPYRIGHT,_VERSION,unpack_one,unpack_limit)lua"},
    {R"lua(local ks = {} for k in pairs(struct) do ks[#ks+1] = k end return table.concat(ks, ','))lua",
     R"lua($pack,size,unpack)lua"},
    {R"lua(return all(cmsgpack.unpack(cmsgpack.pack(2^53, -2^53, 2^63, -2^63, 0.1, 1/0, -1/0))))lua",
     R"lua($9007199254740992 -9007199254740992 9.2233720368547758e+18 -9.2233720368547758e+18 0.10000000000000001 inf -inf)lua"},
    {R"lua(return all(cmsgpack.unpack(cmsgpack.pack(0/0))))lua",
     R"lua($-nan)lua"},
    {R"lua(return hex(cmsgpack.pack(cmsgpack.unpack(cmsgpack.pack({a=1,b={1,2,{c=true}},[3]='x'})))))lua",
     R"lua($8303a178a16101a16293010281a163c3)lua"},
    {R"lua(return hex(cmsgpack.pack({a=1,b={1,2,{c=true}},[3]='x'})))lua",
     R"lua($83a1610103a178a16293010281a163c3)lua"},
    {R"lua(local t = {1,2,3} t[2] = nil return hex(cmsgpack.pack(t)))lua",
     R"lua($8201010303)lua"},
    {R"lua(local t = {1,2,3} t[3] = nil return hex(cmsgpack.pack(t)))lua",
     R"lua($920102)lua"},
    {R"lua(local t = {n = 1} t.n = nil t[1] = 5 return hex(cmsgpack.pack(t)))lua",
     R"lua($9105)lua"},
    {R"lua(return all(pcall(cmsgpack.pack)))lua",
     R"lua($false 'bad argument #0 to '?' (MessagePack pack needs input.)')lua"},
    {R"lua(return all(pcall(cmsgpack.unpack, '\204')))lua",
     R"lua($false 'Missing bytes in input.')lua"},
};
template <size_t N>
void check_cases(const LuaCase (&cases)[N]) {
  for (const LuaCase& c : cases) {
    LuaLibsState lua;
    std::string snippet = c.snippet;
    CAPTURE(snippet);
    CHECK(lua.run(c.snippet) == c.expected);
  }
}

}  // namespace

TEST_CASE("cmsgpack: pack scalars as redis-server does") { check_cases(kPackScalars); }
TEST_CASE("cmsgpack: pack tables as redis-server does") { check_cases(kPackTables); }
TEST_CASE("cmsgpack: pack nesting and argument limits as redis-server does") { check_cases(kPackLimits); }
TEST_CASE("cmsgpack: unpack scalars as redis-server does") { check_cases(kUnpackScalars); }
TEST_CASE("cmsgpack: unpack containers as redis-server does") { check_cases(kUnpackContainers); }
TEST_CASE("cmsgpack: unpack arguments, offsets and limits as redis-server does") { check_cases(kUnpackArguments); }
TEST_CASE("cmsgpack: the library table and round trips as redis-server does") { check_cases(kLibraryAndRoundTrips); }

TEST_CASE("cmsgpack: open_cmsgpack sets the global and returns the table") {
  lua_State* L = luaL_newstate();
  luaL_openlibs(L);
  CHECK(lawnkv::scripting::open_cmsgpack(L) == 1);
  REQUIRE(lua_gettop(L) == 1);
  CHECK(lua_istable(L, 1));
  lua_getglobal(L, "cmsgpack");
  CHECK(lua_rawequal(L, 1, -1));
  for (const char* name : {"pack", "unpack", "unpack_one", "unpack_limit"}) {
    lua_getfield(L, 1, name);
    CHECK(lua_iscfunction(L, -1));
    lua_pop(L, 1);
  }
  // Unlike struct, Redis's cmsgpack does not enter package.loaded.
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaded");
  lua_getfield(L, -1, "cmsgpack");
  CHECK(lua_isnil(L, -1));
  lua_close(L);
}

// Seeded random values (integers of every width, floats, strings across the
// str 8/16/32 bounds, nested arrays and maps up to 6 deep) come back equal
// from unpack(pack(v)), and packing what came back gives bytes of the same
// length (a map's order may change, its size cannot).
TEST_CASE("cmsgpack: generated values survive pack and unpack") {
  LuaLibsState lua;
  const char* snippet =
      "math.randomseed(7) "
      "local function gen(depth) "
      "  local r = math.random(1, depth > 5 and 6 or 9) "
      "  if r == 1 then return math.random(-2^31, 2^31) * (math.random(1, 3) == 1 and 2^31 or 1) "
      "  elseif r == 2 then return math.random(-300, 300) "
      "  elseif r == 3 then return (math.random() - 0.5) * 10^math.random(-30, 30) "
      "  elseif r == 4 then return string.rep(string.char(math.random(0, 255)), "
      "    ({0, 1, 31, 32, 255, 256, 65535, 65536})[math.random(1, 8)]) "
      "  elseif r == 5 then return math.random(1, 2) == 1 "
      "  elseif r == 6 then return math.random(-2^53, 2^53) "
      "  elseif r <= 8 then local t = {} for i = 1, math.random(0, 20) do t[i] = gen(depth + 1) end return t "
      "  else local t = {} for i = 1, math.random(0, 20) do t['k' .. math.random(1, 100)] = gen(depth + 1) end "
      "    return t end "
      "end "
      "local function same(a, b) "
      "  if type(a) ~= type(b) then return false end "
      "  if type(a) ~= 'table' then return a == b end "
      "  for k, v in pairs(a) do if not same(v, b[k]) then return false end end "
      "  for k in pairs(b) do if a[k] == nil then return false end end "
      "  return true "
      "end "
      "for i = 1, 300 do "
      "  local v = gen(0) "
      "  local packed = cmsgpack.pack(v) "
      "  local back = cmsgpack.unpack(packed) "
      "  if not same(v, back) then return 'differs at ' .. i end "
      "  if #cmsgpack.pack(back) ~= #packed then return 'length differs at ' .. i end "
      "end "
      "return 'ok'";
  CHECK(lua.run(snippet) == "$ok");
}

TEST_CASE("cmsgpack: errors raised inside pack and unpack leave the state usable and free what they built") {
  MemoryBudget budget;
  LuaLibsState lua(lua_newstate(MemoryBudget::alloc, &budget));
  lua_State* L = lua.get();
  // Values whose encoding (~200 KB) makes the encoder's buffer grow many
  // times, and the failures that unwind out of the middle of a decode
  // (a nil key after a big string, a value cut short, too deep).
  REQUIRE(lua.run("big = {string.rep('x', 100000), {string.rep('y', 100000)}, a = {1, 2, 3}} "
                  "packed = cmsgpack.pack(big) return #packed") == ":200020");
  // Decoding allocates only strings that are not alive already (Lua interns
  // them): packed_z holds one that is garbage once decoded.
  REQUIRE(lua.run("packed_z = cmsgpack.pack({string.rep('z', 100000)}) return #packed_z") == ":100006");
  const std::string pack_big = "return #cmsgpack.pack(big)";
  const std::string unpack_big = "return #cmsgpack.unpack(packed_z)[1]";
  auto round = [&] {
    REQUIRE(lua.run(pack_big) == ":200020");
    REQUIRE(lua.run(unpack_big) == ":100000");
    REQUIRE(lua.run("return cmsgpack.unpack('\\146' .. cmsgpack.pack(big[1]) .. '\\129\\192\\1')") ==
            "error: table index is nil");
    REQUIRE(lua.run("return cmsgpack.unpack(string.sub(packed, 1, -2))") ==
            "error: user_script:1: Missing bytes in input.");
    REQUIRE(lua.run("return cmsgpack.unpack(string.rep('\\145', 10000) .. '\\1')") ==
            "error: user_script:1: stack overflow (in function mp_decode_to_lua_array)");
  };
  // The first round grows the state for good (its stack, the string
  // table); the baseline is taken after it.
  round();
  lua_gc(L, LUA_GCCOLLECT, 0);
  const size_t baseline = budget.used;
  for (int i = 0; i < 50; i++) round();
  lua_gc(L, LUA_GCCOLLECT, 0);
  CHECK(budget.used <= baseline + 256);

  // Out of memory while the encoder's buffer grows, and while decoding:
  // Lua's error, then the same calls succeed once memory is there.
  budget.limit = budget.used + 150000;
  CHECK(lua.run(pack_big) == "error: not enough memory");
  budget.limit = budget.used + 50000;
  CHECK(lua.run(unpack_big) == "error: not enough memory");
  budget.limit = SIZE_MAX;
  CHECK(lua.run(pack_big) == ":200020");
  CHECK(lua.run(unpack_big) == ":100000");
  lua_gc(L, LUA_GCCOLLECT, 0);
  CHECK(budget.used <= baseline + 256);
}

}  // namespace lawnkv::test
