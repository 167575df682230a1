#pragma once
// Runs compat case files against lawnkv and redis-server and reports every
// reply that differs.
//
// The case-file language (tests/compat/cases/*.txt):
//
//   # a comment                 lines starting with '#', and blank lines, are skipped
//   SET k "a b" EX 100          a command, in redis-cli quoting ("\r\n", "\x00",
//                               'single'); it is sent to both servers as a
//                               multibulk and the two replies must be equal
//                               byte for byte
//   @client 2                   switch to connection 2 (connection 1 is where a
//                               file starts); a connection opens on first use,
//                               in db 0, and stays open until the file ends
//   @also-resp3                 (anywhere in the file) run the whole file a second
//                               time with every connection switched to RESP3 by
//                               HELLO 3 when it opens
//
// Modifiers, before a command on the same line (they can be combined):
//   @sorted KEYS *              compare with every array, set and map sorted:
//                               for replies in an order Redis leaves unspecified
//   @scan SCAN 0 MATCH k*       iterate from cursor 0 until the cursor is 0 again
//                               on each server; compare the sorted distinct
//                               elements (cursors and batches may differ);
//                               also SSCAN key 0 ...
//   @hello HELLO 3              compare a HELLO reply without server, version and
//                               id (they name the product and the connection)
//   @type CLIENT ID             compare only the type byte and null-ness
//   @raw "PING\r\n"             send these bytes as they are (inline commands,
//                               protocol errors); they must produce one reply
//   @closes QUIT                after the reply the server must close the
//                               connection; the next command opens a new one
//   @slow PFSELFTEST            a command that works for a while (a self-test):
//                               its reply may take up to the long timeout, not
//                               the usual one (a sanitizer build under load is
//                               many times slower than redis-server)
//
// Before each file (and each RESP3 rerun) both servers get FLUSHALL; every
// file starts on fresh connections. A file that changes server state other
// than data (CONFIG SET, DEBUG SET-ACTIVE-EXPIRE, CLIENT NO-EVICT...) restores
// it before it ends.
//
// COMPAT_TRACE=1 prints every command with redis-server's reply, to check
// that a new case exercises what it means to.
//
// What cannot be compared byte for byte is not in the files: PTTL and other
// millisecond times (use large TTLs and TTL, which rounds to seconds),
// RANDOMKEY's choice (compare with @type), client ids, INFO and CLIENT LIST
// contents.

#include "../support/server_process.hpp"
#include "case_script.hpp"

namespace lawnkv::test {

struct RunCounts {
  int commands = 0;
  int mismatches = 0;
  bool unresponsive = false;  // lawnkv stopped replying: later files would only time out
};

// Runs `script` on fresh connections to both servers after FLUSHALL on each,
// over RESP3 when `resp3`. Every mismatch is reported as a failed doctest
// check at the case file's line, with the command and both replies escaped.
RunCounts run_case_script(ServerProcess& lawnkv, ServerProcess& redis, const CaseScript& script,
                          bool resp3);

}  // namespace lawnkv::test
