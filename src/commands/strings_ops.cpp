#include "commands/strings_ops.hpp"

#include <cmath>

#include "core/deadline.hpp"
#include "core/numbers.hpp"

namespace lawnkv::strings {

namespace {

// Applies edit to e's string value and returns its new length. A long value
// is edited where it lives (its std::string grows with amortised cost, so
// repeated APPENDs stay linear); a short one is copied out and stored back.
template <class F>
size_t edit_string(store::Db& db, store::Entry& e, F&& edit) {
  // An edited string is Redis's "raw" encoding, whatever its length.
  if (std::string* s = e.heap_str()) {
    edit(*s);
    e.set_raw_encoding(true);
    return s->size();
  }
  std::string s(e.str());
  edit(s);
  db.set_string(e, s).set_raw_encoding(true);
  return s.size();
}

// Redis's checkStringLength: size + append must not exceed max_len (nor
// overflow). Both are >= 0.
bool fits(uint64_t size, uint64_t append, int64_t max_len) {
  const uint64_t max = static_cast<uint64_t>(max_len);
  return size <= max && append <= max - size;
}

}  // namespace

OpResult<store::Entry*> op_set(store::Db& db, store::Entry* found, std::string_view key,
                               std::string_view value, bool keep_ttl, const Deadline* expire) {
  store::Entry* e;
  if (found == nullptr) {
    // A key that will get a deadline is made with its Timer: no second block.
    e = &db.add_string(key, value, expire != nullptr);
  } else {
    if (!keep_ttl) db.clear_deadline(*found);
    e = &db.set_string(*found, value);
  }
  if (expire) e = &db.set_deadline(*e, expire->at_ms, expire->ttl_ms);
  return {OpStatus::kOk, e, found == nullptr};
}

OpResult<long long> op_incr_by(store::Db& db, store::Entry* found, std::string_view key,
                               long long delta) {
  long long value = 0;
  if (found) {
    if (found->type() != store::Type::kString) return {OpStatus::kWrongType};
    if (!string_to_ll(found->str(), &value)) return {OpStatus::kNotInteger};
  }
  if (__builtin_add_overflow(value, delta, &value)) return {OpStatus::kOverflow};
  if (found) {
    db.set_string(*found, ll_to_string(value));
    return {OpStatus::kOk, value, false};
  }
  db.add_string(key, ll_to_string(value));
  return {OpStatus::kOk, value, true};
}

OpResult<std::string> op_incr_by_float(store::Db& db, store::Entry* found, std::string_view key,
                                       long double incr) {
  long double value = 0;
  if (found) {
    if (found->type() != store::Type::kString) return {OpStatus::kWrongType};
    if (!string_to_ld(found->str(), &value)) return {OpStatus::kNotFloat};
  }
  value += incr;
  if (std::isnan(value) || std::isinf(value)) return {OpStatus::kNanOrInfinity};
  // Stored as text, never in the integer form (Redis's
  // createStringObjectFromLongDouble): "3" is "embstr" to OBJECT ENCODING.
  std::string text = ld_to_string(value);
  if (found) {
    db.set_string(*found, text).set_text_encoding(true);
    return {OpStatus::kOk, std::move(text), false};
  }
  db.add_string(key, text).set_text_encoding(true);
  return {OpStatus::kOk, std::move(text), true};
}

OpResult<size_t> op_append(store::Db& db, store::Entry* found, std::string_view key,
                           std::string_view value, int64_t max_len) {
  if (found == nullptr) {
    db.add_string(key, value);
    return {OpStatus::kOk, value.size(), true};
  }
  if (found->type() != store::Type::kString) return {OpStatus::kWrongType};
  if (!fits(found->str().size(), value.size(), max_len)) return {OpStatus::kTooLong};
  return {OpStatus::kOk, edit_string(db, *found, [&](std::string& s) { s.append(value); }), false};
}

OpResult<size_t> op_set_range(store::Db& db, store::Entry* found, std::string_view key,
                              long long offset, std::string_view value, int64_t max_len) {
  if (found && found->type() != store::Type::kString) return {OpStatus::kWrongType};
  if (value.empty()) return {OpStatus::kOk, found ? found->str().size() : 0, false};
  const uint64_t at = static_cast<uint64_t>(offset);
  if (!fits(at, value.size(), max_len)) return {OpStatus::kTooLong};
  bool created = false;
  if (found == nullptr) {
    found = &db.add_string(key, std::string_view());
    created = true;
  }
  const size_t size = edit_string(db, *found, [&](std::string& s) {
    if (s.size() < at + value.size()) s.resize(at + value.size(), '\0');
    s.replace(at, value.size(), value);
  });
  return {OpStatus::kOk, size, created};
}

std::string_view string_range(std::string_view s, long long start, long long end) {
  const long long len = static_cast<long long>(s.size());
  if (start < 0 && end < 0 && start > end) return {};
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (start > end || len == 0) return {};
  return s.substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1));
}

OpResult<Deadline> resolve_deadline(long long value, TimeUnit unit, bool absolute, int64_t now_ms) {
  if (value <= 0) return {OpStatus::kInvalidExpire};
  const std::optional<int64_t> ms = unit == TimeUnit::kSeconds ? seconds_to_ms(value) : value;
  if (!ms) return {OpStatus::kInvalidExpire};
  if (absolute) return {OpStatus::kOk, Deadline{*ms, 0}};
  const std::optional<int64_t> at = deadline_after(now_ms, *ms);
  if (!at) return {OpStatus::kInvalidExpire};
  return {OpStatus::kOk, Deadline{*at, *ms}};
}

}  // namespace lawnkv::strings
