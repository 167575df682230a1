// SORT and SORT_RO: the elements of a list, set or sorted set, sorted by
// their own value or by keys named after them (BY pattern, BY key->field),
// numerically or ALPHA, ASC or DESC, cut by LIMIT, each replaced by what
// GET patterns name, returned or STOREd as a list. As Redis 7.0's sort.c,
// quirks included: a BY without '*' skips sorting for good, a set sorted
// into STORE (or for a script) without sorting is sorted ALPHA (the result
// must not depend on a hash table's order), and a score that does not parse fails
// the command only after the sort.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "commands/families.hpp"
#include "commands/hashes_ops.hpp"
#include "commands/lists_ops.hpp"
#include "engine/acl_user.hpp"
#include "engine/args.hpp"
#include "engine/errors.hpp"
#include "engine/keys.hpp"
#include "engine/lookup.hpp"
#include "types/hash.hpp"
#include "types/list.hpp"
#include "types/set.hpp"
#include "types/zset.hpp"

namespace lawnkv {

namespace {

constexpr std::string_view kBadScore = "ERR One or more scores can't be converted into double";

struct SortOptions {
  bool desc = false;
  bool alpha = false;
  bool dontsort = false;           // a BY pattern without '*'
  long long limit_start = 0;
  long long limit_count = -1;
  std::optional<std::string_view> by;
  std::optional<std::string_view> store;
  std::vector<std::string_view> gets;
};

// One element to sort, with what it sorts by.
struct Item {
  explicit Item(std::string v) : value(std::move(v)) {}
  std::string value;
  double score = 0;
  std::optional<std::string> by;  // ALPHA with BY: the value looked up (none: sorts first)
};

constexpr char kByDenied[] = "ERR BY option of SORT denied due to insufficient ACL permissions.";
constexpr char kGetDenied[] = "ERR GET option of SORT denied due to insufficient ACL permissions.";

// BY and GET read keys the data names, which no key spec lists: as Redis
// 7.0.13 on (CVE-2023-41053), only a user who may read every key may use
// them (a BY without '*' reads nothing and is always allowed).
bool full_read_access(const Call& call) {
  const acl::User* user = call.session.user;
  return user == nullptr || user->unrestricted() ||
         (call.spec != nullptr && user->unrestricted_keys_for(*call.spec, call.argv, acl::kKeyRead));
}

bool sort_options_or_reply(Call& call, bool readonly, SortOptions* o) {
  const auto& argv = call.argv;
  const bool full_access = full_read_access(call);
  for (size_t j = 2; j < argv.size(); ++j) {
    const size_t left = argv.size() - j - 1;
    if (is_option(argv[j], "asc")) {
      o->desc = false;
    } else if (is_option(argv[j], "desc")) {
      o->desc = true;
    } else if (is_option(argv[j], "alpha")) {
      o->alpha = true;
    } else if (is_option(argv[j], "limit") && left >= 2) {
      if (!integer_or_reply(call, argv[j + 1], &o->limit_start) ||
          !integer_or_reply(call, argv[j + 2], &o->limit_count))
        return false;
      j += 2;
    } else if (!readonly && is_option(argv[j], "store") && left >= 1) {
      o->store = argv[++j];
    } else if (is_option(argv[j], "by") && left >= 1) {
      o->by = argv[++j];
      if (o->by->find('*') == std::string_view::npos) {
        o->dontsort = true;
      } else if (!full_access) {
        call.error(kByDenied);
        return false;
      }
    } else if (is_option(argv[j], "get") && left >= 1) {
      if (!full_access) {
        call.error(kGetDenied);
        return false;
      }
      o->gets.push_back(argv[++j]);
    } else {
      call.error(err::kSyntax);
      return false;
    }
  }
  return true;
}

// What pattern names for element subst (Redis's lookupKeyByPattern): "#" is
// subst itself; else the first '*' becomes subst and the key's string value
// is read, or, with "->field" after the '*', that field of the key's hash.
// None when the pattern has no '*', the key is missing or of another type.
std::optional<std::string> lookup_by_pattern(Call& call, std::string_view pattern, std::string_view subst) {
  if (pattern == "#") return std::string(subst);
  const size_t star = pattern.find('*');
  if (star == std::string_view::npos) return std::nullopt;
  std::string_view field;
  const size_t arrow = pattern.find("->", star + 1);
  if (arrow != std::string_view::npos && arrow + 2 < pattern.size()) field = pattern.substr(arrow + 2);
  const std::string_view rest =
      pattern.substr(star + 1, pattern.size() - star - 1 - (field.empty() ? 0 : field.size() + 2));
  std::string key;
  key.reserve(pattern.size() + subst.size());
  key.append(pattern.substr(0, star)).append(subst).append(rest);
  if (!field.empty()) {
    const store::Entry* found = call.db().peek(key);
    if (found && found->type() == store::Type::kHash) {
      bool wrong_type;
      const types::Hash* h = hash_for_read(call, key, &wrong_type);
      const auto v = h ? h->get(field) : std::nullopt;
      if (v) return std::string(*v);
      return std::nullopt;
    }
    lookup_read(call, key);  // counted as a hit or a miss, as Redis
    return std::nullopt;
  }
  const store::Entry* e = lookup_read(call, key);
  if (!e || e->type() != store::Type::kString) return std::nullopt;
  return std::string(e->str());
}

// Redis's sortCompare, ascending; false when equal.
struct Compare {
  bool alpha, by, store, desc;
  static int binary(const std::string& a, const std::string& b) {
    const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
    if (c != 0) return c;
    return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
  }
  // As the C locale's strcoll (or LC_COLLATE's): up to the first NUL.
  static int collate(const std::string& a, const std::string& b) { return std::strcoll(a.c_str(), b.c_str()); }
  int cmp(const Item& a, const Item& b) const {
    if (!alpha) {
      if (a.score != b.score) return a.score > b.score ? 1 : -1;
      return binary(a.value, b.value);
    }
    if (by) {
      if (!a.by || !b.by) return a.by == b.by ? 0 : !a.by ? -1 : 1;
      return store ? binary(*a.by, *b.by) : collate(*a.by, *b.by);
    }
    return store ? binary(a.value, b.value) : collate(a.value, b.value);
  }
  bool operator()(const Item& a, const Item& b) const { return (desc ? -cmp(a, b) : cmp(a, b)) < 0; }
};

// The elements of obj in [start, start + n) of its natural order (a list's,
// a sorted set's ranks), from the far end when desc.
void load_range(const store::Object* obj, size_t len, size_t start, size_t n, bool desc, std::vector<Item>& out) {
  if (obj->type() == store::Type::kList) {
    const auto& list = static_cast<const types::List&>(*obj);
    auto take = [&](std::string_view v) {
      out.emplace_back(std::string(v));
      return out.size() < n;
    };
    if (n == 0) return;
    if (desc) list.for_each_back_from(len - start - 1, take);
    else list.for_each_from(start, take);
    return;
  }
  const auto& z = static_cast<const types::ZSet&>(*obj);
  auto take = [&](std::string_view m, double) { out.emplace_back(std::string(m)); };
  if (desc) z.walk(len - start - n, len - start, true, take);
  else z.walk(start, start + n, false, take);
}

void load_all(const store::Object* obj, std::vector<Item>& out) {
  switch (obj->type()) {
    case store::Type::kList:
      static_cast<const types::List&>(*obj).for_each_from(0, [&](std::string_view v) {
        out.emplace_back(std::string(v));
        return true;
      });
      return;
    case store::Type::kSet:
      static_cast<const types::Set&>(*obj).for_each([&](const types::Member& m) { out.emplace_back(m.to_string()); });
      return;
    default: {
      const auto& z = static_cast<const types::ZSet&>(*obj);
      z.walk(0, z.size(), false, [&](std::string_view m, double) { out.emplace_back(std::string(m)); });
    }
  }
}

size_t size_of(const store::Object* obj) {
  switch (obj->type()) {
    case store::Type::kList: return static_cast<const types::List&>(*obj).size();
    case store::Type::kSet: return static_cast<const types::Set&>(*obj).size();
    default: return static_cast<const types::ZSet&>(*obj).size();
  }
}

// Reads what item sorts by; false when it does not parse as a score.
bool score_item(Call& call, const SortOptions& o, Item& item) {
  std::optional<std::string> by;
  if (o.by) {
    by = lookup_by_pattern(call, *o.by, item.value);
    if (!by) return true;
  }
  const std::string& v = o.by ? *by : item.value;
  if (o.alpha) {
    if (o.by) item.by = std::move(by);
    return true;
  }
  errno = 0;
  char* end;
  item.score = std::strtod(v.c_str(), &end);
  return *end == '\0' && errno != ERANGE && !std::isnan(item.score);
}

// Replaces key with the list of values (or deletes it when there are none).
void store_result(Call& call, std::string_view key, const std::vector<std::string>& values) {
  if (values.empty()) {
    if (lookup_write(call, key) && call.db().remove(key)) {
      call.modified(key, pubsub::kGeneric, "del");
    }
    return;
  }
  const bool existed = lookup_write(call, key) != nullptr;
  if (existed) call.db().remove(key);
  types::List& list = create_list(call, key);
  const types::ListOptions lopts = list_options(call);
  for (const std::string& v : values) list.push_back(v, lopts);
  if (!existed) call.notify(pubsub::kNew, "new", key);
  call.modified(key);
  call.data.dirty += values.size() - 1;  // Redis counts one change a stored element
  call.notify(pubsub::kList, "sortstore", key);
}

void sort_generic(Call& call, bool readonly) {
  SortOptions o;
  if (!sort_options_or_reply(call, readonly, &o)) return;
  const store::Entry* e = lookup_read(call, call.argv[1]);
  const store::Object* obj = e ? e->obj() : nullptr;
  if (e && (!obj || (obj->type() != store::Type::kList && obj->type() != store::Type::kSet &&
                     obj->type() != store::Type::kZSet)))
    return call.error(err::kWrongType);
  // A set's order is its hash table's: what is stored, or what a script
  // (a client without a socket) reads, must not depend on it.
  if (o.dontsort && obj && obj->type() == store::Type::kSet && (o.store || call.session.detached)) {
    o.dontsort = false;
    o.alpha = true;
    o.by.reset();
  }

  // LIMIT as Redis bounds it: [start, end] within the elements.
  const long long len = obj ? static_cast<long long>(size_of(obj)) : 0;
  long long start = std::min(std::max(o.limit_start, 0LL), len);
  const long long count = std::min(std::max(o.limit_count, -1LL), len);
  long long end = count < 0 ? len - 1 : start + count - 1;
  if (start >= len) {
    start = len - 1;
    end = len - 2;
  }
  if (end >= len) end = len - 1;

  std::vector<Item> items;
  const bool ordered = obj && obj->type() != store::Type::kSet;
  if (ordered && o.dontsort) {
    // Only the range asked for, in the value's own order.
    const long long n = (start != 0 || end != len - 1) ? end - start + 1 : len;
    if (end >= start) load_range(obj, static_cast<size_t>(len), static_cast<size_t>(start), static_cast<size_t>(n), o.desc, items);
    end -= start;  // the range is all that was loaded
    start = 0;
  } else if (obj) {
    load_all(obj, items);
  }

  bool bad_score = false;
  if (!o.dontsort) {
    for (Item& item : items) bad_score |= !score_item(call, o, item);
    std::stable_sort(items.begin(), items.end(), Compare{o.alpha, o.by.has_value(), o.store.has_value(), o.desc});
  }

  if (bad_score) return call.error(kBadScore);
  const long long rows = end - start + 1;
  if (!o.store) {
    call.reply.array(static_cast<size_t>(o.gets.empty() ? rows : rows * static_cast<long long>(o.gets.size())));
    for (long long j = start; j <= end; ++j) {
      const Item& item = items[static_cast<size_t>(j)];
      if (o.gets.empty()) call.reply.bulk(item.value);
      for (std::string_view g : o.gets) {
        const auto v = lookup_by_pattern(call, g, item.value);
        if (v) call.reply.bulk(*v);
        else call.reply.null();
      }
    }
    return;
  }
  std::vector<std::string> values;
  for (long long j = start; j <= end; ++j) {
    const Item& item = items[static_cast<size_t>(j)];
    if (o.gets.empty()) values.push_back(item.value);
    for (std::string_view g : o.gets) values.push_back(lookup_by_pattern(call, g, item.value).value_or(""));
  }
  store_result(call, *o.store, values);
  call.reply.integer(static_cast<long long>(values.size()));
}

/* SORT key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC] [ALPHA] [STORE destination] */
void sort_command(Call& call) { sort_generic(call, false); }

/* SORT_RO key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC|DESC] [ALPHA] */
void sort_ro_command(Call& call) { sort_generic(call, true); }

// SORT's keys (Redis's sortGetKeys): the key sorted, and the destination of
// the last STORE, found by skipping LIMIT's, GET's and BY's arguments.
void sort_keys(std::span<const std::string_view> argv, std::vector<KeyRef>& out) {
  out.push_back({1, 0});
  int store = 0;
  const int argc = static_cast<int>(argv.size());
  for (int i = 2; i < argc; ++i) {
    const std::string_view a = argv[static_cast<size_t>(i)];
    if (is_option(a, "limit")) i += 2;
    else if (is_option(a, "store") && i + 1 < argc) store = i + 1;  // its argument is read as an option next
    else if (is_option(a, "get") || is_option(a, "by")) i += 1;
  }
  if (store) out.push_back({store, 2});
}

void sort_ro_keys(std::span<const std::string_view>, std::vector<KeyRef>& out) { out.push_back({1, 0}); }

constexpr std::string_view kByGetNote =
    "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the "
    "key we sort";
constexpr std::string_view kStoreNote =
    "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument "
    "array";

}  // namespace

void register_sort_commands(CommandTable& t) {
  static const std::string sort_notes = ";" + std::string(kByGetNote) + ";" + std::string(kStoreNote);
  static const std::string sort_ro_notes = ";" + std::string(kByGetNote);
  t.add({
    {.name = "sort", .arity = -2, .flags = kWrite | kDenyOom | kMovableKeys, .keys = {1, 1, 1},
     .acl = "@write @set @sortedset @list @slow @dangerous",
     .group = "generic", .since = "1.0.0", .complexity = "O(N+M*log(M)) where N is the number of elements to sort",
     .summary = "Sorts the elements of a list, set or sorted set, and returns or stores them",
     .key_flags = "RO access;RO access;OW update", .key_notes = sort_notes,
     .unknown_key_specs = 2, .get_keys = sort_keys,
     .handler = sort_command},
    {.name = "sort_ro", .arity = -2, .flags = kReadonly | kMovableKeys, .keys = {1, 1, 1},
     .acl = "@read @set @sortedset @list @slow @dangerous",
     .group = "generic", .since = "7.0.0", .complexity = "O(N+M*log(M)) where N is the number of elements to sort",
     .summary = "Sorts the elements of a list, set or sorted set, and returns them",
     .key_flags = "RO access;RO access", .key_notes = sort_ro_notes,
     .unknown_key_specs = 1, .get_keys = sort_ro_keys,
     .handler = sort_ro_command},
  });
}

}  // namespace lawnkv
