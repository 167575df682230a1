// The struct library (src/scripting/lib_struct.hpp) against redis-server
// 7.0.15: every snippet below ran in EVAL on the real server and its answer
// is the expectation (see lua_libs_fixture.hpp for the prelude that renders
// values). Then what a server cannot show: how the library is registered,
// and that errors raised from inside it (a longjmp through our frames)
// leave the state usable and leak nothing.

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "lua_libs_fixture.hpp"

namespace lawnkv::test {

namespace {

// struct.pack, integers: sizes, byte order, numbers out of range cast as x86-64 does, argument errors.
const LuaCase kPackIntegers[] = {
    {R"lua(return hex(struct.pack('b', -1)))lua",
     R"lua($ff)lua"},
    {R"lua(return hex(struct.pack('B', 255)))lua",
     R"lua($ff)lua"},
    {R"lua(return hex(struct.pack('B', 256)))lua",
     R"lua($00)lua"},
    {R"lua(return hex(struct.pack('b', 200)))lua",
     R"lua($c8)lua"},
    {R"lua(return hex(struct.pack('>h', -2)))lua",
     R"lua($fffe)lua"},
    {R"lua(return hex(struct.pack('<h', -2)))lua",
     R"lua($feff)lua"},
    {R"lua(return hex(struct.pack('>H', 65535)))lua",
     R"lua($ffff)lua"},
    {R"lua(return hex(struct.pack('>l', -2)))lua",
     R"lua($fffffffffffffffe)lua"},
    {R"lua(return hex(struct.pack('<L', 2^53)))lua",
     R"lua($0000000000002000)lua"},
    {R"lua(return hex(struct.pack('>L', 2^63)))lua",
     R"lua($8000000000000000)lua"},
    {R"lua(return hex(struct.pack('<L', 2^64)))lua",
     R"lua($0000000000000000)lua"},
    {R"lua(return hex(struct.pack('<L', 1e30)))lua",
     R"lua($0000000000000000)lua"},
    {R"lua(return hex(struct.pack('<l', -1e30)))lua",
     R"lua($0000000000000080)lua"},
    {R"lua(return hex(struct.pack('<l', 1e30)))lua",
     R"lua($0000000000000000)lua"},
    {R"lua(return hex(struct.pack('<L', 0/0)))lua",
     R"lua($0000000000000080)lua"},
    {R"lua(return hex(struct.pack('<l', 0/0)))lua",
     R"lua($0000000000000080)lua"},
    {R"lua(return hex(struct.pack('<L', -1)))lua",
     R"lua($ffffffffffffffff)lua"},
    {R"lua(return hex(struct.pack('<L', 2^63+2^62)))lua",
     R"lua($00000000000000c0)lua"},
    {R"lua(return hex(struct.pack('<T', 7)))lua",
     R"lua($0700000000000000)lua"},
    {R"lua(return hex(struct.pack('i', 1)))lua",
     R"lua($01000000)lua"},
    {R"lua(return hex(struct.pack('>i', -1)))lua",
     R"lua($ffffffff)lua"},
    {R"lua(return hex(struct.pack('>i3', 65536*2+1)))lua",
     R"lua($020001)lua"},
    {R"lua(return hex(struct.pack('<i3', -2)))lua",
     R"lua($feffff)lua"},
    {R"lua(return hex(struct.pack('>I1', 300)))lua",
     R"lua($2c)lua"},
    {R"lua(return hex(struct.pack('<i16', -2)))lua",
     R"lua($feffffffffffffff0000000000000000)lua"},
    {R"lua(return hex(struct.pack('>i16', -2)))lua",
     R"lua($0000000000000000fffffffffffffffe)lua"},
    {R"lua(return hex(struct.pack('>I9', 2^64-1)))lua",
     R"lua($000000000000000000)lua"},
    {R"lua(return hex(struct.pack('i32', 1)))lua",
     R"lua($0100000000000000000000000000000000000000000000000000000000000000)lua"},
    {R"lua(return hex(struct.pack('i33', 1)))lua",
     R"lua(error: user_script:1: integral size 33 is larger than limit of 32)lua"},
    {R"lua(return hex(struct.pack('i0', 5)))lua",
     R"lua($)lua"},
    {R"lua(return hex(struct.pack('>I4', 3.7)))lua",
     R"lua($00000003)lua"},
    {R"lua(return hex(struct.pack('>i4', -3.7)))lua",
     R"lua($fffffffd)lua"},
    {R"lua(return hex(struct.pack('>I4', '12')))lua",
     R"lua($0000000c)lua"},
    {R"lua(return hex(struct.pack('>I4', ' 0x10 ')))lua",
     R"lua($00000010)lua"},
    {R"lua(return hex(struct.pack('>I4', 'abc')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'pack' (number expected, got string))lua"},
    {R"lua(return hex(struct.pack('>I4', {})))lua",
     R"lua(error: user_script:1: bad argument #2 to 'pack' (number expected, got table))lua"},
    {R"lua(return hex(struct.pack('>I4')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'pack' (number expected, got nil))lua"},
    {R"lua(return hex(struct.pack('>I4I4', 1)))lua",
     R"lua(error: user_script:1: bad argument #3 to 'pack' (number expected, got nil))lua"},
    {R"lua(return hex(struct.pack()))lua",
     R"lua(error: user_script:1: bad argument #1 to 'pack' (string expected, got no value))lua"},
    {R"lua(return hex(struct.pack(5, 1)))lua",
     R"lua(error: user_script:1: bad argument #1 to 'pack' (invalid format option '5'))lua"},
    {R"lua(return hex(struct.pack({}, 1)))lua",
     R"lua(error: user_script:1: bad argument #1 to 'pack' (string expected, got table))lua"},
};

// struct.pack: f and d, x, c[n] (c0 = the whole string), s, counts that overflow.
const LuaCase kPackFloatsAndStrings[] = {
    {R"lua(return hex(struct.pack('>f', 1.5)))lua",
     R"lua($3fc00000)lua"},
    {R"lua(return hex(struct.pack('<f', 1.5)))lua",
     R"lua($0000c03f)lua"},
    {R"lua(return hex(struct.pack('>f', 0.1)))lua",
     R"lua($3dcccccd)lua"},
    {R"lua(return hex(struct.pack('>f', 1e300)))lua",
     R"lua($7f800000)lua"},
    {R"lua(return hex(struct.pack('>f', -1e300)))lua",
     R"lua($ff800000)lua"},
    {R"lua(return hex(struct.pack('>f', 0/0)))lua",
     R"lua($ffc00000)lua"},
    {R"lua(return hex(struct.pack('>d', 0.1)))lua",
     R"lua($3fb999999999999a)lua"},
    {R"lua(return hex(struct.pack('<d', -0.0)))lua",
     R"lua($0000000000000080)lua"},
    {R"lua(return hex(struct.pack('>d', 1/0)))lua",
     R"lua($7ff0000000000000)lua"},
    {R"lua(return hex(struct.pack('x')))lua",
     R"lua($00)lua"},
    {R"lua(return hex(struct.pack('xxbx', 3)))lua",
     R"lua($00000300)lua"},
    {R"lua(return hex(struct.pack('c', 'abc')))lua",
     R"lua($61)lua"},
    {R"lua(return hex(struct.pack('c3', 'abc')))lua",
     R"lua($616263)lua"},
    {R"lua(return hex(struct.pack('c2', 'abc')))lua",
     R"lua($6162)lua"},
    {R"lua(return hex(struct.pack('c5', 'abc')))lua",
     R"lua(error: user_script:1: bad argument #3 to 'pack' (string too short))lua"},
    {R"lua(return hex(struct.pack('bc5', 1, 'abc')))lua",
     R"lua(error: user_script:1: bad argument #4 to 'pack' (string too short))lua"},
    {R"lua(return hex(struct.pack('c0', 'abc')))lua",
     R"lua($616263)lua"},
    {R"lua(return hex(struct.pack('c0', '')))lua",
     R"lua($)lua"},
    {R"lua(return hex(struct.pack('c0', 12)))lua",
     R"lua($3132)lua"},
    {R"lua(return hex(struct.pack('s', 'abc')))lua",
     R"lua($61626300)lua"},
    {R"lua(return hex(struct.pack('s', 'a\0b')))lua",
     R"lua($61006200)lua"},
    {R"lua(return hex(struct.pack('s', '')))lua",
     R"lua($00)lua"},
    {R"lua(return hex(struct.pack('s')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'pack' (string expected, got nil))lua"},
    {R"lua(return hex(struct.pack('c99999999999', 'a')))lua",
     R"lua(error: user_script:1: integral size overflow)lua"},
    {R"lua(return hex(struct.pack('c2147483647', 'a')))lua",
     R"lua(error: user_script:1: bad argument #3 to 'pack' (string too short))lua"},
    {R"lua(return hex(struct.pack('c2147483648', 'a')))lua",
     R"lua(error: user_script:1: integral size overflow)lua"},
    {R"lua(return hex(struct.pack('i2147483647', 1)))lua",
     R"lua(error: user_script:1: integral size 2147483647 is larger than limit of 32)lua"},
};

// struct.pack: invalid options ('=' is one), spaces, endianness, alignment with '!', and outputs past the
// luaL_Buffer's 8 KiB.
const LuaCase kPackOptions[] = {
    {R"lua(return hex(struct.pack('z', 1)))lua",
     R"lua(error: user_script:1: bad argument #1 to 'pack' (invalid format option 'z'))lua"},
    {R"lua(return hex(struct.pack('=i', 1)))lua",
     R"lua(error: user_script:1: bad argument #1 to 'pack' (invalid format option '='))lua"},
    {R"lua(return hex(struct.pack('?', 1)))lua",
     R"lua(error: user_script:1: bad argument #1 to 'pack' (invalid format option '?'))lua"},
    {R"lua(return hex(struct.pack('\200', 1)))lua",
     "error: user_script:1: bad argument #1 to 'pack' (invalid format option '\xc8""')"},
    {R"lua(return hex(struct.pack(' > i < i ', 1, 2)))lua",
     R"lua($0000000102000000)lua"},
    {R"lua(return hex(struct.pack('!4 b i', 1, 2)))lua",
     R"lua($0100000002000000)lua"},
    {R"lua(return hex(struct.pack('! b i', 1, 2)))lua",
     R"lua($0100000002000000)lua"},
    {R"lua(return hex(struct.pack('!b d', 1, 2)))lua",
     R"lua($01000000000000000000000000000040)lua"},
    {R"lua(return hex(struct.pack('!2b d', 1, 2)))lua",
     R"lua($01000000000000000040)lua"},
    {R"lua(return hex(struct.pack('!8b h b l', 1, 2, 3, 4)))lua",
     R"lua($01000200030000000400000000000000)lua"},
    {R"lua(return hex(struct.pack('!4b i3', 1, 2)))lua",
     R"lua($010000020000)lua"},
    {R"lua(return hex(struct.pack('!4bb i3', 1, 2, 3)))lua",
     R"lua($0102030000)lua"},
    {R"lua(return hex(struct.pack('!4b c3', 1, 'abc')))lua",
     R"lua($01616263)lua"},
    {R"lua(return hex(struct.pack('!4b s', 1, 'abc')))lua",
     R"lua($0161626300)lua"},
    {R"lua(return hex(struct.pack('!4b x i', 1, 2)))lua",
     R"lua($0100000002000000)lua"},
    {R"lua(return hex(struct.pack('!3b i', 1, 2)))lua",
     R"lua(error: user_script:1: alignment 3 is not a power of 2)lua"},
    {R"lua(return hex(struct.pack('!0b i', 1, 2)))lua",
     R"lua(error: user_script:1: alignment 0 is not a power of 2)lua"},
    {R"lua(return hex(struct.pack('!16b d', 1, 2)))lua",
     R"lua($01000000000000000000000000000040)lua"},
    {R"lua(return hex(struct.pack('!99999999999', 1)))lua",
     R"lua(error: user_script:1: integral size overflow)lua"},
    {R"lua(return hex(struct.pack('b\0b', 1, 2)))lua",
     R"lua($01)lua"},
    {R"lua(return hex(struct.pack('>bhilT', 1, 2, 3, 4, 5)))lua",
     R"lua($0100020000000300000000000000040000000000000005)lua"},
    {R"lua(return hex(struct.pack('<bhilT', 1, 2, 3, 4, 5)))lua",
     R"lua($0102000300000004000000000000000500000000000000)lua"},
    {R"lua(return hex(struct.pack('<BHILT', -1, -1, -1, -1, -1)))lua",
     R"lua($ffffffffffffffffffffffffffffffffffffffffffffff)lua"},
    {R"lua(return string.len(struct.pack('c0', string.rep('x', 10000))))lua",
     R"lua(:10000)lua"},
    {R"lua(return hex(struct.pack('c0b', string.rep('x', 9000), 7):sub(-3)))lua",
     R"lua($787807)lua"},
};

// struct.unpack: integers of every size (over 8 bytes only the low 8 count), floats, doubles.
const LuaCase kUnpackNumbers[] = {
    {R"lua(return all(struct.unpack('b', '\255')))lua",
     R"lua($-1 2)lua"},
    {R"lua(return all(struct.unpack('B', '\255')))lua",
     R"lua($255 2)lua"},
    {R"lua(return all(struct.unpack('>h', '\255\254')))lua",
     R"lua($-2 3)lua"},
    {R"lua(return all(struct.unpack('<h', '\255\254')))lua",
     R"lua($-257 3)lua"},
    {R"lua(return all(struct.unpack('>H', '\255\254')))lua",
     R"lua($65534 3)lua"},
    {R"lua(return all(struct.unpack('>i', '\255\255\255\255')))lua",
     R"lua($-1 5)lua"},
    {R"lua(return all(struct.unpack('>I', '\255\255\255\255')))lua",
     R"lua($4294967295 5)lua"},
    {R"lua(return all(struct.unpack('<l', '\255\255\255\255\255\255\255\255')))lua",
     R"lua($-1 9)lua"},
    {R"lua(return all(struct.unpack('<L', '\255\255\255\255\255\255\255\255')))lua",
     R"lua($1.8446744073709552e+19 9)lua"},
    {R"lua(return all(struct.unpack('<L', '\0\0\0\0\0\0\0\128')))lua",
     R"lua($9.2233720368547758e+18 9)lua"},
    {R"lua(return all(struct.unpack('<T', '\1\0\0\0\0\0\0\0')))lua",
     R"lua($1 9)lua"},
    {R"lua(return all(struct.unpack('<i3', '\254\255\255')))lua",
     R"lua($-2 4)lua"},
    {R"lua(return all(struct.unpack('<I3', '\254\255\255')))lua",
     R"lua($16777214 4)lua"},
    {R"lua(return all(struct.unpack('<i9', string.rep('\255', 9))))lua",
     R"lua($-1 10)lua"},
    {R"lua(return all(struct.unpack('<i0', '')))lua",
     R"lua($0 1)lua"},
    {R"lua(return all(struct.unpack('<I0', '')))lua",
     R"lua($0 1)lua"},
    {R"lua(return all(struct.unpack('<i16', string.rep('\255', 16))))lua",
     R"lua($-1 17)lua"},
    {R"lua(return all(struct.unpack('<I16', string.rep('\255', 16))))lua",
     R"lua($1.8446744073709552e+19 17)lua"},
    {R"lua(return all(struct.unpack('<i9', '\1\0\0\0\0\0\0\128\255')))lua",
     R"lua($-127 10)lua"},
    {R"lua(return all(struct.unpack('>i9', '\255\128\0\0\0\0\0\0\1')))lua",
     R"lua($-127 10)lua"},
    {R"lua(return all(struct.unpack('<i10', '\1\0\0\0\0\0\0\0\0\1')))lua",
     R"lua($1 11)lua"},
    {R"lua(return all(struct.unpack('<i12', '\1\0\0\0\0\0\0\0\0\0\0\0')))lua",
     R"lua($1 13)lua"},
    {R"lua(return all(struct.unpack('>f', '\63\192\0\0')))lua",
     R"lua($1.5 5)lua"},
    {R"lua(return all(struct.unpack('<f', '\0\0\192\63')))lua",
     R"lua($1.5 5)lua"},
    {R"lua(return all(struct.unpack('>d', struct.pack('>d', 0.1))))lua",
     R"lua($0.10000000000000001 9)lua"},
    {R"lua(return all(struct.unpack('>f', struct.pack('>f', 0.1))))lua",
     R"lua($0.10000000149011612 5)lua"},
    {R"lua(return all(struct.unpack('>d', struct.pack('>d', 1/0))))lua",
     R"lua($inf 9)lua"},
    {R"lua(return all(struct.unpack('>d', struct.pack('>d', -1/0))))lua",
     R"lua($-inf 9)lua"},
};

// struct.unpack: c[n], c0 after a numeric value (a numeric string counts), s, x.
const LuaCase kUnpackStrings[] = {
    {R"lua(return all(struct.unpack('c', 'abc')))lua",
     R"lua($'a' 2)lua"},
    {R"lua(return all(struct.unpack('c2', 'abc')))lua",
     R"lua($'ab' 3)lua"},
    {R"lua(return all(struct.unpack('c3', 'abc')))lua",
     R"lua($'abc' 4)lua"},
    {R"lua(return all(struct.unpack('c4', 'abc')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
    {R"lua(return all(struct.unpack('c0', '\3abc')))lua",
     R"lua(error: user_script:1: format 'c0' needs a previous size)lua"},
    {R"lua(return all(struct.unpack('bc0', '\3abc')))lua",
     R"lua($'abc' 5)lua"},
    {R"lua(return all(struct.unpack('bc0', '\4abc')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
    {R"lua(return all(struct.unpack('Bc0', '\255abc')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
    {R"lua(return all(struct.unpack('bc0', '\255abc')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
    {R"lua(return all(struct.unpack('c1c0', '3abc')))lua",
     R"lua($'abc' 5)lua"},
    {R"lua(return all(struct.unpack('c1c0', 'xabc')))lua",
     R"lua(error: user_script:1: format 'c0' needs a previous size)lua"},
    {R"lua(return all(struct.unpack('bbc0', '\1\2ab')))lua",
     R"lua($1 'ab' 5)lua"},
    {R"lua(return all(struct.unpack('>I2c0', '\0\5hello')))lua",
     R"lua($'hello' 8)lua"},
    {R"lua(return all(struct.unpack('s', 'abc\0def\0')))lua",
     R"lua($'abc' 5)lua"},
    {R"lua(return all(struct.unpack('ss', 'abc\0def\0')))lua",
     R"lua($'abc' 'def' 9)lua"},
    {R"lua(return all(struct.unpack('sss', 'abc\0def\0')))lua",
     R"lua(error: user_script:1: unfinished string in data)lua"},
    {R"lua(return all(struct.unpack('s', 'abc')))lua",
     R"lua(error: user_script:1: unfinished string in data)lua"},
    {R"lua(return all(struct.unpack('s', '\0')))lua",
     R"lua($'' 2)lua"},
    {R"lua(return all(struct.unpack('s', '')))lua",
     R"lua(error: user_script:1: unfinished string in data)lua"},
    {R"lua(return all(struct.unpack('x', '')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
    {R"lua(return all(struct.unpack('xb', '\1\2')))lua",
     R"lua($2 3)lua"},
};

// struct.unpack: the start position and next position, argument errors, alignment, too many results.
const LuaCase kUnpackPositions[] = {
    {R"lua(return all(struct.unpack('', '')))lua",
     R"lua($1)lua"},
    {R"lua(return all(struct.unpack('', 'abc')))lua",
     R"lua($1)lua"},
    {R"lua(return all(struct.unpack('b', 'xyz', 2)))lua",
     R"lua($121 3)lua"},
    {R"lua(return all(struct.unpack('b', 'xyz', 3)))lua",
     R"lua($122 4)lua"},
    {R"lua(return all(struct.unpack('b', 'xyz', 4)))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
    {R"lua(return all(struct.unpack('', 'xyz', 4)))lua",
     R"lua($4)lua"},
    {R"lua(return all(struct.unpack('', 'xyz', 5)))lua",
     R"lua($5)lua"},
    {R"lua(return all(struct.unpack(' ', 'xyz', 5)))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
    {R"lua(return all(struct.unpack('', 'xyz', 100)))lua",
     R"lua($100)lua"},
    {R"lua(return all(struct.unpack('b', 'xyz', 0)))lua",
     R"lua(error: user_script:1: bad argument #3 to 'unpack' (offset must be 1 or greater))lua"},
    {R"lua(return all(struct.unpack('b', 'xyz', -1)))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
    {R"lua(return all(struct.unpack('', 'xyz', -1)))lua",
     R"lua($-1)lua"},
    {R"lua(return all(struct.unpack('b', 'xyz', 2.9)))lua",
     R"lua($121 3)lua"},
    {R"lua(return all(struct.unpack('b', 'xyz', '2')))lua",
     R"lua($121 3)lua"},
    {R"lua(return all(struct.unpack('b', 'xyz', 'a')))lua",
     R"lua(error: user_script:1: bad argument #3 to 'unpack' (number expected, got string))lua"},
    {R"lua(return all(struct.unpack('b', 'xyz', nil)))lua",
     R"lua($120 2)lua"},
    {R"lua(return all(struct.unpack('b')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (string expected, got no value))lua"},
    {R"lua(return all(struct.unpack('b', 5)))lua",
     R"lua($53 2)lua"},
    {R"lua(return all(struct.unpack('b', {})))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (string expected, got table))lua"},
    {R"lua(return all(struct.unpack()))lua",
     R"lua(error: user_script:1: bad argument #1 to 'unpack' (string expected, got no value))lua"},
    {R"lua(return all(struct.unpack('z', 'abc')))lua",
     R"lua(error: user_script:1: bad argument #1 to 'unpack' (invalid format option 'z'))lua"},
    {R"lua(return all(struct.unpack('=b', 'abc')))lua",
     R"lua(error: user_script:1: bad argument #1 to 'unpack' (invalid format option '='))lua"},
    {R"lua(return all(struct.unpack('>i', 'abc')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
    {R"lua(return all(struct.unpack('!4bi', '\1\0\0\0\2\0\0\0')))lua",
     R"lua($1 2 9)lua"},
    {R"lua(return all(struct.unpack('!4bi', '\1\0\0\0\2\0\0')))lua",
     R"lua(error: user_script:1: bad argument #2 to 'unpack' (data string too short))lua"},
    {R"lua(return all(struct.unpack('!4bi', '\1\0\0\0\2\0\0\0', 2)))lua",
     R"lua($0 2 9)lua"},
    {R"lua(return all(struct.unpack('!2bd', string.rep('\0', 10))))lua",
     R"lua($0 0 11)lua"},
    {R"lua(return all(struct.unpack('!bd', string.rep('\0', 16))))lua",
     R"lua($0 0 17)lua"},
    {R"lua(return all(struct.unpack('!3bi', string.rep('\0', 16))))lua",
     R"lua(error: user_script:1: alignment 3 is not a power of 2)lua"},
    {R"lua(return all(struct.unpack('!4b i3 b', string.rep('\1', 16))))lua",
     R"lua($1 65793 1 8)lua"},
    {R"lua(return all(struct.unpack('i33', 'a')))lua",
     R"lua(error: user_script:1: integral size 33 is larger than limit of 32)lua"},
    {R"lua(return all(struct.unpack('c99999999999', 'a')))lua",
     R"lua(error: user_script:1: integral size overflow)lua"},
    {R"lua(return all(struct.unpack('b', 'a\0b')))lua",
     R"lua($97 2)lua"},
    {R"lua(return select('#', struct.unpack(string.rep('b', 300), string.rep('a', 300))))lua",
     R"lua(:301)lua"},
    {R"lua(return select('#', struct.unpack(string.rep('b', 7990), string.rep('a', 7990))))lua",
     R"lua(:7991)lua"},
    {R"lua(return select('#', struct.unpack(string.rep('b', 9000), string.rep('a', 9000))))lua",
     R"lua(error: user_script:1: stack overflow (too many results))lua"},
    {R"lua(return all(struct.unpack(string.rep('x', 5) .. 'b', 'abcdef')))lua",
     R"lua($102 7)lua"},
};

// struct.size: alignment, sizes that have none (s, c0), letters it does not check, errors.
const LuaCase kSize[] = {
    {R"lua(return all(struct.size('')))lua",
     R"lua($0)lua"},
    {R"lua(return all(struct.size('b')))lua",
     R"lua($1)lua"},
    {R"lua(return all(struct.size('bhilT')))lua",
     R"lua($23)lua"},
    {R"lua(return all(struct.size('!bhilT')))lua",
     R"lua($24)lua"},
    {R"lua(return all(struct.size('!4bd')))lua",
     R"lua($12)lua"},
    {R"lua(return all(struct.size('!2bd')))lua",
     R"lua($10)lua"},
    {R"lua(return all(struct.size('!bd')))lua",
     R"lua($16)lua"},
    {R"lua(return all(struct.size('!3bi')))lua",
     R"lua(error: user_script:1: alignment 3 is not a power of 2)lua"},
    {R"lua(return all(struct.size('fdx')))lua",
     R"lua($13)lua"},
    {R"lua(return all(struct.size('c')))lua",
     R"lua($1)lua"},
    {R"lua(return all(struct.size('c10')))lua",
     R"lua($10)lua"},
    {R"lua(return all(struct.size('c0')))lua",
     R"lua(error: user_script:1: bad argument #1 to 'size' (option 'c0' has no fixed size))lua"},
    {R"lua(return all(struct.size('s')))lua",
     R"lua(error: user_script:1: bad argument #1 to 'size' (option 's' has no fixed size))lua"},
    {R"lua(return all(struct.size('bs')))lua",
     R"lua(error: user_script:1: bad argument #1 to 'size' (option 's' has no fixed size))lua"},
    {R"lua(return all(struct.size('i7')))lua",
     R"lua($7)lua"},
    {R"lua(return all(struct.size('i33')))lua",
     R"lua(error: user_script:1: integral size 33 is larger than limit of 32)lua"},
    {R"lua(return all(struct.size('zq')))lua",
     R"lua($0)lua"},
    {R"lua(return all(struct.size('?')))lua",
     R"lua(error: user_script:1: bad argument #1 to 'size' (invalid format option '?'))lua"},
    {R"lua(return all(struct.size('=')))lua",
     R"lua(error: user_script:1: bad argument #1 to 'size' (invalid format option '='))lua"},
    {R"lua(return all(struct.size('>< ')))lua",
     R"lua($0)lua"},
    {R"lua(return all(struct.size('!5')))lua",
     R"lua(error: user_script:1: alignment 5 is not a power of 2)lua"},
    {R"lua(return all(struct.size('c99999999999')))lua",
     R"lua(error: user_script:1: integral size overflow)lua"},
    {R"lua(return all(struct.size('c2147483647c1')))lua",
     R"lua($2147483648)lua"},
    {R"lua(return all(struct.size('c2147483647c2147483647c2147483647')))lua",
     R"lua($6442450941)lua"},
    {R"lua(return all(struct.size()))lua",
     R"lua(error: user_script:1: bad argument #1 to 'size' (string expected, got no value))lua"},
    {R"lua(return all(struct.size(12)))lua",
     R"lua($0)lua"},
    {R"lua(return all(struct.size('\200')))lua",
     "error: user_script:1: bad argument #1 to 'size' (invalid format option '\xc8""')"},
};

// Round trips, errors caught by pcall (no position; the function is unnamed), the registered table.
const LuaCase kRoundTripsAndPcall[] = {
    {R"lua(return all(struct.unpack('>bhilTfd', struct.pack('>bhilTfd', -1, -2, -3, -4, 5, 1.5, 0.1))))lua",
     R"lua($-1 -2 -3 -4 5 1.5 0.10000000000000001 36)lua"},
    {R"lua(return all(struct.unpack('<BHILT', struct.pack('<BHILT', 1, 2, 3, 4, 5))))lua",
     R"lua($1 2 3 4 5 24)lua"},
    {R"lua(return all(struct.unpack('<sc0b', struct.pack('<sbc0b', 'hi', 3, 'xyz', 9))))lua",
     R"lua(error: user_script:1: format 'c0' needs a previous size)lua"},
    {R"lua(return all(struct.unpack('<bc0b', struct.pack('<bc0b', 3, 'xyz', 9))))lua",
     R"lua($'xyz' 9 6)lua"},
    {R"lua(return all(pcall(struct.pack, 'z')))lua",
     R"lua($false 'bad argument #1 to '?' (invalid format option 'z')')lua"},
    {R"lua(return all(pcall(struct.unpack, 'c0', 'abc')))lua",
     R"lua($false 'format 'c0' needs a previous size')lua"},
    {R"lua(return all(pcall(struct.pack, 'c5', 'abc')))lua",
     R"lua($false 'bad argument #3 to '?' (string too short)')lua"},
    {R"lua(return all(type(struct.pack), type(struct.unpack), type(struct.size)))lua",
     R"lua($'function' 'function' 'function')lua"},
    {R"lua(return all(struct.pack == struct.pack))lua",
     R"lua($true)lua"},
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

TEST_CASE("struct: pack integers as redis-server does") { check_cases(kPackIntegers); }
TEST_CASE("struct: pack floats and strings as redis-server does") { check_cases(kPackFloatsAndStrings); }
TEST_CASE("struct: pack format options and alignment as redis-server does") { check_cases(kPackOptions); }
TEST_CASE("struct: unpack numbers as redis-server does") { check_cases(kUnpackNumbers); }
TEST_CASE("struct: unpack strings as redis-server does") { check_cases(kUnpackStrings); }
TEST_CASE("struct: unpack positions and errors as redis-server does") { check_cases(kUnpackPositions); }
TEST_CASE("struct: size as redis-server does") { check_cases(kSize); }
TEST_CASE("struct: round trips and pcall as redis-server does") { check_cases(kRoundTripsAndPcall); }

TEST_CASE("struct: open_struct sets the global and package.loaded.struct and returns the table") {
  lua_State* L = luaL_newstate();
  luaL_openlibs(L);
  CHECK(lawnkv::scripting::open_struct(L) == 1);
  REQUIRE(lua_gettop(L) == 1);
  CHECK(lua_istable(L, 1));
  lua_getglobal(L, "struct");
  CHECK(lua_rawequal(L, 1, -1));
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "loaded");
  lua_getfield(L, -1, "struct");
  CHECK(lua_rawequal(L, 1, -1));
  for (const char* name : {"pack", "unpack", "size"}) {
    lua_getfield(L, 1, name);
    CHECK(lua_iscfunction(L, -1));
    lua_pop(L, 1);
  }
  lua_close(L);
}

TEST_CASE("struct: errors raised inside pack and unpack leave the state usable and free what they built") {
  MemoryBudget budget;
  LuaLibsState lua(lua_newstate(MemoryBudget::alloc, &budget));
  lua_State* L = lua.get();
  const std::string pack_two = "return #struct.pack('c0c0', big, big)";
  // Each error unwinds past a luaL_Buffer that had pushed parts of its
  // output (more than its 8 KiB) onto the stack.
  auto round = [&] {
    REQUIRE(lua.run("return struct.pack('c0c0d', big, big, 'no')") ==
            "error: user_script:1: bad argument #4 to 'pack' (number expected, got string)");
    REQUIRE(lua.run("return struct.unpack('c0', big)") == "error: user_script:1: format 'c0' needs a previous size");
    REQUIRE(lua.run(pack_two) == ":200000");
  };
  REQUIRE(lua.run("big = string.rep('x', 100000) return #big") == ":100000");
  // The first round grows the state for good (its stack, the string
  // table); the baseline is taken after it.
  round();
  lua_gc(L, LUA_GCCOLLECT, 0);
  const size_t baseline = budget.used;
  for (int i = 0; i < 100; i++) round();
  lua_gc(L, LUA_GCCOLLECT, 0);
  CHECK(budget.used <= baseline + 256);

  // Out of memory while the buffer grows: Lua's error, then the same call
  // succeeds once memory is there.
  budget.limit = budget.used + 150000;
  CHECK(lua.run(pack_two) == "error: not enough memory");
  budget.limit = SIZE_MAX;
  CHECK(lua.run(pack_two) == ":200000");
  lua_gc(L, LUA_GCCOLLECT, 0);
  CHECK(budget.used <= baseline + 256);
}

}  // namespace lawnkv::test
