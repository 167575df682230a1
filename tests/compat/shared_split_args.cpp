// The case files are split by the server's own lawnkv::split_args, so the
// tests and the server read quoting alike. The Makefile links build/compat-tests
// from tests/compat and tests/support objects only, not build/liblawnkv.a, so
// its one source file is compiled in here. Delete this file once the
// compat-tests link line includes liblawnkv.a.
#include "core/split_args.cpp"
