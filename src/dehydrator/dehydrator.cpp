#include "dehydrator/dehydrator.hpp"

#include <algorithm>
#include <limits>

namespace lawnkv::dehydrator {

namespace {
constexpr size_t kAll = std::numeric_limits<size_t>::max();
constexpr size_t kKeepBatch = 4096;  // scratch capacity kept between calls
}

Dehydrator::~Dehydrator() {
  // The elements are freed with by_id_; the index must not keep links to them.
  index_.clear();
}

size_t Dehydrator::memory_bytes() const {
  // A node of the id map: the view key, the pointer, the hash link and hash.
  constexpr size_t kNode = sizeof(std::string_view) + sizeof(void*) * 2 + sizeof(size_t);
  size_t bytes = sizeof(*this) + index_.memory_bytes() + by_id_.bucket_count() * sizeof(void*) +
                 batch_.capacity() * sizeof(Element*);
  for (const auto& [id, e] : by_id_) {
    bytes += sizeof(Element) + kNode;
    if (e->id.capacity() > 15) bytes += e->id.capacity() + 1;
    if (e->value.capacity() > 15) bytes += e->value.capacity() + 1;
  }
  return bytes;
}

std::unique_ptr<store::Object> Dehydrator::clone() const {
  auto copy = std::make_unique<Dehydrator>();
  copy->next_seq_ = next_seq_;
  copy->earliest_stale_ = true;
  // Due elements first, in due order, then the pending ones at their
  // deadlines: the copy hands them out in the same order.
  for (const Element* e = due_head_; e; e = e->due_next) {
    auto c = new_element();
    c->id = e->id;
    c->value = e->value;
    c->seq = e->seq;
    c->timer.deadline = e->timer.deadline;
    Element* raw = c.get();
    copy->by_id_.emplace(std::string_view(raw->id), std::move(c));
    copy->append_due(raw);
  }
  for (const auto& [id, e] : by_id_) {
    if (e->due) continue;
    auto c = new_element();
    c->id = e->id;
    c->value = e->value;
    c->seq = e->seq;
    Element* raw = c.get();
    copy->by_id_.emplace(std::string_view(raw->id), std::move(c));
    copy->index_.add(&raw->timer, e->timer.deadline, 0);
  }
  return copy;
}

bool Dehydrator::push(std::string_view id, std::string_view element, int64_t ttl_ms, int64_t now_ms) {
  if (by_id_.count(id)) return false;
  auto e = new_element();
  e->id.assign(id);
  e->value.assign(element);
  e->seq = next_seq_++;
  Element* raw = e.get();
  by_id_.emplace(std::string_view(raw->id), std::move(e));
  index_.add(&raw->timer, now_ms + ttl_ms, ttl_ms > 0 ? ttl_ms : 0);
  earliest_ = std::min(earliest_, now_ms + ttl_ms);
  return true;
}

std::optional<std::string> Dehydrator::pull(std::string_view id) {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  return remove(it->second.get());
}

const std::string* Dehydrator::look(std::string_view id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &it->second->value;
}

std::optional<std::string> Dehydrator::update(std::string_view id, std::string_view element) {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  std::string old = std::move(it->second->value);
  it->second->value.assign(element);
  return old;
}

std::vector<std::string_view> Dehydrator::due_ids(int64_t now_ms) {
  collect_due(now_ms);
  std::vector<std::string_view> ids;
  ids.reserve(due_count_);
  for (const Element* e = due_head_; e; e = e->due_next) ids.emplace_back(e->id);
  return ids;
}

std::optional<std::string> Dehydrator::ack(std::string_view id, int64_t now_ms) {
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  Element* e = it->second.get();
  if (!e->due && now_ms <= e->timer.deadline) return std::nullopt;
  return remove(e);
}

bool Dehydrator::has_due(int64_t now_ms) {
  collect_due(now_ms);
  return due_head_ != nullptr;
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
  index_.drain(now_ms, kAll, [this](expiry::Timer* t) { batch_.push_back(reinterpret_cast<Element*>(t)); });
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
  e->due = true;
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

std::string Dehydrator::remove(Element* e) {
  if (e->due) {
    unlink_due(e);
  } else {
    index_.cancel(&e->timer);
    if (e->timer.deadline == earliest_) earliest_stale_ = true;
  }
  std::string value = std::move(e->value);
  by_id_.erase(std::string_view(e->id));
  return value;
}

}  // namespace lawnkv::dehydrator
