#pragma once
// Whether the running doctest test case has failed so far, so that helpers
// such as ServerProcess can print a server's log only when it helps (a
// failure), and stay quiet otherwise.

namespace lawnkv::test {

// True once a check of the current test case failed, or while an exception
// is unwinding through the caller (a test about to fail by throwing).
bool current_test_failed();

}  // namespace lawnkv::test
