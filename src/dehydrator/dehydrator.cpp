#include "dehydrator/dehydrator.hpp"

#include <algorithm>
#include <limits>

#include "core/deadline.hpp"

namespace lawnkv::dehydrator {

namespace {
constexpr size_t kAll = std::numeric_limits<size_t>::max();
constexpr size_t kKeepBatch = 4096;  // scratch capacity kept between calls
}

Dehydrator::~Dehydrator() {
  // The index must not keep links to the elements freed here.
  index_.clear();
  by_id_.clear([](Element* e) { Element::destroy(e); });
}

size_t Dehydrator::memory_bytes() const {
  size_t bytes = sizeof(*this) + index_.memory_bytes() + by_id_.memory_bytes() + batch_.capacity() * sizeof(Element*);
  by_id_.for_each([&](const Element* e) { bytes += e->block_bytes() + e->outside_bytes(); });
  return bytes;
}

std::unique_ptr<store::Object> Dehydrator::clone() const {
  auto copy = std::make_unique<Dehydrator>();
  copy->next_seq_ = next_seq_;
  copy->earliest_stale_ = true;
  // Due elements first, in due order, then the pending ones at their
  // deadlines: the copy hands them out in the same order.
  for (const Element* e = due_head_; e; e = e->due_next) {
    Element* c = Element::make(e->id(), e->value(), e->seq);
    c->timer.deadline = e->timer.deadline;
    copy->by_id_.insert(c);
    copy->append_due(c);
  }
  by_id_.for_each([&](const Element* e) {
    if (e->due()) return;
    Element* c = Element::make(e->id(), e->value(), e->seq);
    copy->by_id_.insert(c);
    copy->index_.add(&c->timer, e->timer.deadline, 0);
  });
  return copy;
}

std::vector<Dehydrator::Saved> Dehydrator::saved_order() const {
  std::vector<Saved> out;
  out.reserve(by_id_.size());
  for (const Element* e = due_head_; e; e = e->due_next) out.push_back({e->id(), e->value(), e->timer.deadline, true});
  std::vector<const Element*> pending;
  pending.reserve(by_id_.size() - out.size());
  by_id_.for_each([&](const Element* e) {
    if (!e->due()) pending.push_back(e);
  });
  std::sort(pending.begin(), pending.end(), [](const Element* a, const Element* b) {
    return a->timer.deadline != b->timer.deadline ? a->timer.deadline < b->timer.deadline : a->seq < b->seq;
  });
  for (const Element* e : pending) out.push_back({e->id(), e->value(), e->timer.deadline, false});
  return out;
}

bool Dehydrator::restore(std::string_view id, std::string_view value, int64_t deadline, bool due) {
  if (contains(id)) return false;
  deadline = std::clamp<int64_t>(deadline, 0, kMaxDeadline);
  Element* e = Element::make(id, value, next_seq_++);
  by_id_.insert(e);
  if (due) {
    e->timer.deadline = deadline;
    append_due(e);
  } else {
    index_.add(&e->timer, deadline, 0);
    earliest_ = std::min(earliest_, deadline);
  }
  return true;
}

std::optional<int64_t> Dehydrator::deadline_for(int64_t ttl_ms, int64_t now_ms) {
  const std::optional<int64_t> at = deadline_after(now_ms, ttl_ms);
  if (!at || *at < 0 || *at > kMaxDeadline) return std::nullopt;
  return at;
}

bool Dehydrator::push(std::string_view id, std::string_view element, int64_t ttl_ms, int64_t now_ms) {
  if (contains(id)) return false;
  const int64_t deadline = std::clamp<int64_t>(saturating_add(now_ms, ttl_ms), 0, kMaxDeadline);
  Element* e = Element::make(id, element, next_seq_++);
  by_id_.insert(e);
  index_.add(&e->timer, deadline, ttl_ms > 0 ? ttl_ms : 0);
  earliest_ = std::min(earliest_, deadline);
  return true;
}

std::optional<std::string> Dehydrator::pull(std::string_view id) {
  Element* e = by_id_.find(id);
  if (!e) return std::nullopt;
  return take(e);
}

std::optional<std::string_view> Dehydrator::look(std::string_view id) const {
  const Element* e = by_id_.find(id);
  if (!e) return std::nullopt;
  return e->value();
}

std::optional<std::string> Dehydrator::update(std::string_view id, std::string_view element) {
  Element* e = by_id_.find(id);
  if (!e) return std::nullopt;
  std::string old(e->value());
  if (e->assign_in_place(element)) return old;
  // A block of the new size takes e's place in the table and in the index or
  // on the due list, so the order it comes out in is unchanged.
  Element* fresh = Element::make(id, element, e->seq);
  by_id_.replace(e, fresh);
  if (e->due()) {
    fresh->set_due();
    fresh->timer.deadline = e->timer.deadline;
    fresh->due_prev = e->due_prev;
    fresh->due_next = e->due_next;
    if (e->due_prev) e->due_prev->due_next = fresh;
    else due_head_ = fresh;
    if (e->due_next) e->due_next->due_prev = fresh;
    else due_tail_ = fresh;
  } else {
    expiry::Index::relocate(&e->timer, &fresh->timer);
  }
  Element::destroy(e);
  return old;
}

std::vector<std::string_view> Dehydrator::due_ids(int64_t now_ms) {
  collect_due(now_ms);
  std::vector<std::string_view> ids;
  ids.reserve(due_count_);
  for (const Element* e = due_head_; e; e = e->due_next) ids.emplace_back(e->id());
  return ids;
}

std::optional<std::string> Dehydrator::ack(std::string_view id, int64_t now_ms) {
  Element* e = by_id_.find(id);
  if (!e || (!e->due() && now_ms <= e->timer.deadline)) return std::nullopt;
  return take(e);
}

size_t Dehydrator::due_count(int64_t now_ms) {
  collect_due(now_ms);
  return due_count_;
}

int64_t Dehydrator::next_due_bound(int64_t now_ms) {
  return has_due(now_ms) ? 0 : index_.next_deadline();
}

int64_t Dehydrator::ttn(int64_t now_ms) {
  if (has_due(now_ms)) return 0;
  if (earliest_stale_) {
    earliest_ = index_.earliest();
    earliest_stale_ = false;
  }
  if (earliest_ == expiry::kNever) return -1;
  // Due once now > earliest: at earliest + 1.
  return earliest_ + 1 - now_ms;
}

void Dehydrator::collect_due(int64_t now_ms) {
  batch_.clear();
  index_.drain(now_ms, kAll, [this](expiry::Timer* t) { batch_.push_back(Element::from_timer(t)); });
  if (batch_.empty()) return;
  earliest_stale_ = true;
  // The index gives deadline order; restore push order within equal deadlines.
  for (size_t run = 0; run < batch_.size();) {
    size_t end = run + 1;
    while (end < batch_.size() && batch_[end]->timer.deadline == batch_[run]->timer.deadline) ++end;
    if (end - run > 1)
      std::sort(batch_.begin() + run, batch_.begin() + end,
                [](const Element* a, const Element* b) { return a->seq < b->seq; });
    run = end;
  }
  for (Element* e : batch_) append_due(e);
  if (batch_.capacity() > kKeepBatch) std::vector<Element*>().swap(batch_);
}

void Dehydrator::append_due(Element* e) {
  e->set_due();
  e->due_prev = due_tail_;
  e->due_next = nullptr;
  if (due_tail_) due_tail_->due_next = e;
  else due_head_ = e;
  due_tail_ = e;
  ++due_count_;
}

void Dehydrator::unlink_due(Element* e) {
  if (e->due_prev) e->due_prev->due_next = e->due_next;
  else due_head_ = e->due_next;
  if (e->due_next) e->due_next->due_prev = e->due_prev;
  else due_tail_ = e->due_prev;
  --due_count_;
}

void Dehydrator::remove(Element* e) {
  if (e->due()) {
    unlink_due(e);
  } else {
    index_.cancel(&e->timer);
    if (e->timer.deadline == earliest_) earliest_stale_ = true;
  }
  by_id_.remove(e);
  Element::destroy(e);
}

std::string Dehydrator::take(Element* e) {
  std::string value(e->value());
  remove(e);
  return value;
}

}  // namespace lawnkv::dehydrator
