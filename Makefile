# lawnkv: `make` builds build/lawnkv-server; `make run` and `make test` also
# install what is missing (scripts/install-deps.sh) first. `make test` runs
# the suites of build/ and of the sanitizer build, build-asan/;
# `make check` is the fast subset to run between commits (the layers, then
# unit, integration and compat suites of build/: a few minutes);
# `make test-sanitize` runs the latter alone, `make fuzz` the fuzzers,
# `make differential` a long randomized run against redis-server (README:
# Sanitizers and fuzzing).

CXX      ?= g++
# Asserts stay on in every build (nothing defines NDEBUG): they guard the
# invariants of the intrusive expiry structures (src/expiry), where a broken
# link would corrupt memory silently; an abort with file and line is the
# better failure, and they cost nothing measurable. No client input may reach
# one: what comes off the wire is validated above them (deadlines by
# core/deadline.hpp, 0 <= now by Clock), and every such path is pinned by a
# test that feeds it edge values (tests/compat/time_edges_test.cpp,
# tests/integration/dehydrator_test.cpp).
CXXFLAGS ?= -O2 -g
# override: these stay when CXXFLAGS is given on the command line.
override CXXFLAGS += -std=c++20 -Wall -Wextra -Wshadow -Wno-unused-parameter -MMD -MP -Isrc
UV_CFLAGS := $(shell pkg-config --cflags libuv 2>/dev/null)
UV_LIBS   := $(shell pkg-config --libs libuv 2>/dev/null || echo -luv)
# Scripting: Debian's PUC Lua 5.1 (Redis embeds 5.1.5) with its cjson and
# LuaBitOp modules, linked statically so the Lua state opens them itself.
# Lua itself comes from Debian's static archive too (liblua5.1-0-dev ships
# it): its API calls are direct calls instead of going through the PLT, and
# profiles of the server name its functions.
LUA_CFLAGS := $(shell pkg-config --cflags lua5.1 2>/dev/null || echo -I/usr/include/lua5.1)
LUA_LIBS   := -Wl,-Bstatic -llua5.1-cjson -llua5.1-bitop -llua5.1 -Wl,-Bdynamic -lm -ldl
# TLS (src/server/tls_*.cpp): Debian's OpenSSL (libssl-dev).
SSL_LIBS := $(shell pkg-config --libs openssl 2>/dev/null || echo -lssl -lcrypto)
# jemalloc replaces malloc in everything that links the library: see
# src/core/allocator.hpp for why. MALLOC=libc leaves it out (the sanitizer
# builds: ASan must own malloc).
MALLOC ?= jemalloc
ifeq ($(MALLOC),libc)
override CXXFLAGS += -DLAWNKV_NO_JEMALLOC
LIBS      := $(UV_LIBS) $(LUA_LIBS) $(SSL_LIBS)
else
LIBS      := $(UV_LIBS) $(LUA_LIBS) $(SSL_LIBS) -ljemalloc
endif

BUILD := build
JOBS  := $(shell nproc 2>/dev/null || echo 2)
# Everything under src/ but main.cpp is a library that the tests link too.
LIB_SRCS  := $(filter-out src/main.cpp,$(shell find src -name '*.cpp' | sort))
LIB_OBJS  := $(LIB_SRCS:%.cpp=$(BUILD)/%.o)
UNIT_SRCS := $(shell find tests/unit -name '*.cpp' | sort)
SUPPORT_SRCS := $(shell find tests/support -name '*.cpp' 2>/dev/null | sort)
INTEG_SRCS := $(shell find tests/integration -name '*.cpp' | sort)
COMPAT_SRCS := $(shell find tests/compat -name '*.cpp' | sort)

FUZZ_SRCS := $(shell find tests/fuzz -name '*_fuzz.cpp' 2>/dev/null | sort)
FUZZERS   := $(FUZZ_SRCS:tests/fuzz/%.cpp=$(BUILD)/fuzz/%)

SERVER := $(BUILD)/lawnkv-server

# The sanitizer build: server, unit and compat tests and the libFuzzer
# harnesses (tests/fuzz/), built by clang with ASan and UBSan, without
# jemalloc, in build-asan/. fuzzer-no-link adds libFuzzer's coverage
# instrumentation, so the same objects serve the harnesses.
SAN_BUILD := build-asan
SAN_CXX   := clang++
SAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined,fuzzer-no-link \
             -fno-sanitize-recover=all
SAN_MAKE   = $(MAKE) -j$(JOBS) BUILD=$(SAN_BUILD) CXX=$(SAN_CXX) CXXFLAGS="$(SAN_FLAGS)" MALLOC=libc
FUZZ_SECONDS ?= 60

# The ThreadSanitizer build (I/O threads, src/server/io_threads.hpp): the
# server, built by clang with -fsanitize=thread, without jemalloc, in
# build-tsan/. make test runs build/'s I/O-thread tests against that server
# (scripts/run-tests.sh tsan). The integration tests are clients in their own
# processes, so the sanitized server is what they exercise; they are built
# once, in build/.
TSAN_BUILD := build-tsan
TSAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
TSAN_MAKE   = $(MAKE) -j$(JOBS) BUILD=$(TSAN_BUILD) CXX=$(SAN_CXX) CXXFLAGS="$(TSAN_FLAGS)" MALLOC=libc

.PHONY: all run test check test-sanitize sanitize-build tsan-build fuzz fuzzers differential deps-run deps-test deps-bench bench clean
all: $(SERVER)

$(BUILD)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $(UV_CFLAGS) $(LUA_CFLAGS) -c $< -o $@

$(BUILD)/liblawnkv.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(SERVER): $(BUILD)/src/main.o $(BUILD)/liblawnkv.a
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LIBS)

$(BUILD)/unit-tests: $(UNIT_SRCS:%.cpp=$(BUILD)/%.o) $(BUILD)/liblawnkv.a
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LIBS)

$(BUILD)/integration-tests: $(INTEG_SRCS:%.cpp=$(BUILD)/%.o) $(SUPPORT_SRCS:%.cpp=$(BUILD)/%.o)
	$(CXX) $(CXXFLAGS) $^ -o $@ -lhiredis

$(BUILD)/compat-tests: $(COMPAT_SRCS:%.cpp=$(BUILD)/%.o) $(SUPPORT_SRCS:%.cpp=$(BUILD)/%.o) $(BUILD)/liblawnkv.a
	$(CXX) $(CXXFLAGS) $^ -o $@ -lhiredis $(LIBS)

# A harness links libFuzzer's main: -fsanitize=fuzzer (clang only).
$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/liblawnkv.a
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -fsanitize=fuzzer $^ -o $@ $(LIBS)

fuzzers: $(FUZZERS)
# Keep the harness objects (make would delete them as intermediates).
.SECONDARY: $(FUZZ_SRCS:%.cpp=$(BUILD)/%.o)

$(BUILD)/bench-expiry: $(BUILD)/bench/expiry_bench.o $(BUILD)/liblawnkv.a
	$(CXX) $(CXXFLAGS) $^ -o $@ -lbenchmark -lpthread

# The reaper's own CPU per chunk and per cycle in a mass expiry, in-process
# (bench/expiry/reap_chunks.cpp; bench/results/expiry-stall.md).
$(BUILD)/bench/reap-chunks: $(BUILD)/bench/expiry/reap_chunks.o $(BUILD)/liblawnkv.a
	$(CXX) $(CXXFLAGS) $^ -o $@ $(LIBS)

deps-run:
	@scripts/install-deps.sh run

deps-test:
	@scripts/install-deps.sh test

deps-bench:
	@scripts/install-deps.sh bench

run: deps-run
	$(MAKE) -j$(JOBS) $(SERVER)
	$(SERVER) redis.conf.example

test: deps-test
	$(MAKE) -j$(JOBS) $(SERVER) $(BUILD)/unit-tests $(BUILD)/integration-tests $(BUILD)/compat-tests
	$(MAKE) sanitize-build
	$(MAKE) tsan-build
	scripts/run-tests.sh

check: deps-test
	$(MAKE) -j$(JOBS) $(SERVER) $(BUILD)/unit-tests $(BUILD)/integration-tests $(BUILD)/compat-tests
	scripts/run-tests.sh check

tsan-build:
	$(TSAN_MAKE) $(TSAN_BUILD)/lawnkv-server

sanitize-build:
	$(SAN_MAKE) $(SAN_BUILD)/lawnkv-server $(SAN_BUILD)/unit-tests $(SAN_BUILD)/compat-tests fuzzers

# The sanitizer suites alone: unit, integration, compat, a mixed load, and each
# fuzz harness over its committed corpus.
test-sanitize: deps-test
	$(MAKE) -j$(JOBS) $(BUILD)/integration-tests
	$(MAKE) sanitize-build
	scripts/run-tests.sh sanitize

# Each harness for FUZZ_SECONDS (default 60) from its committed corpus;
# new inputs go to build-asan/fuzz-corpus/, crashes to build-asan/fuzz-crashes/.
fuzz: deps-test
	$(MAKE) sanitize-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

# The randomized differential test (tests/compat/random_test.cpp) at length:
# DIFF_OPS operations (default 1,000,000) against redis-server, with a seed
# of its own unless COMPAT_SEED is set; a divergence is shrunk to the few
# commands that reproduce it.
DIFF_OPS ?= 1000000
differential: deps-test
	$(MAKE) -j$(JOBS) $(SERVER) $(BUILD)/compat-tests
	COMPAT_RANDOM_OPS=$(DIFF_OPS) $(BUILD)/compat-tests -tc='*randomized*'

bench: deps-bench
	$(MAKE) -j$(JOBS) $(SERVER) $(BUILD)/bench-expiry
	scripts/bench.sh

clean:
	rm -rf $(BUILD) $(SAN_BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
