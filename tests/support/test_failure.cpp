// A doctest listener that remembers whether the current test case has a
// failed assertion. The flag is the one piece of mutable global state in the
// support library: doctest's reporter interface offers no other channel.
#include "test_failure.hpp"

#include <doctest/doctest.h>

#include <exception>

namespace lawnkv::test {

namespace {

bool g_failed = false;

struct FailureListener : doctest::IReporter {
  explicit FailureListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData&) override { g_failed = false; }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override { g_failed = true; }
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData& data) override {
    if (data.m_failed) g_failed = true;
  }
  void log_message(const doctest::MessageData& data) override {
    if (data.m_severity & (doctest::assertType::is_check | doctest::assertType::is_require)) {
      g_failed = true;
    }
  }
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

REGISTER_LISTENER("lawnkv-failure-tracker", 1, FailureListener);

}  // namespace

bool current_test_failed() { return g_failed || std::uncaught_exceptions() > 0; }

}  // namespace lawnkv::test
