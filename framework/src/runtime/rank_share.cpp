#include "runtime/rank_share.h"

#include <bit>
#include <cstring>
#include <stdexcept>

#include "mpi/world.h"

namespace dede::internal {
namespace {

// Length-prefixed fields in one string: exact bytes and bits, whatever they hold.
class Packer {
 public:
  void Int(std::int64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof(v)); }
  void Real(double v) { Int(std::bit_cast<std::int64_t>(v)); }
  void Text(const std::string& s) {
    Int(static_cast<std::int64_t>(s.size()));
    out_ += s;
  }
  std::string& bytes() { return out_; }

 private:
  std::string out_;
};

class Unpacker {
 public:
  explicit Unpacker(const std::string& in) : in_(in) {}
  std::int64_t Int() {
    std::int64_t v = 0;
    Take(&v, sizeof(v));
    return v;
  }
  double Real() { return std::bit_cast<double>(Int()); }
  std::string Text() {
    const std::int64_t n = Int();
    if (n < 0 || static_cast<std::size_t>(n) > in_.size() - at_)
      throw std::runtime_error("rank 0's message is truncated");
    std::string s = in_.substr(at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
    return s;
  }

 private:
  void Take(void* out, std::size_t n) {
    if (n > in_.size() - at_) throw std::runtime_error("rank 0's message is truncated");
    std::memcpy(out, in_.data() + at_, n);
    at_ += n;
  }
  const std::string& in_;
  std::size_t at_ = 0;
};

void PackStatus(const Status& s, Packer* p) {
  p->Int(static_cast<std::int64_t>(s.code()));
  p->Text(s.message());
}

Status UnpackStatus(Unpacker* u) {
  const auto code = static_cast<StatusCode>(u->Int());
  std::string message = u->Text();
  return code == StatusCode::kOk ? Status::Ok() : Status(code, std::move(message));
}

void PackEvents(const std::vector<EventRow>& rows, Packer* p) {
  p->Int(static_cast<std::int64_t>(rows.size()));
  for (const EventRow& r : rows) {
    p->Int(r.id);
    p->Text(r.deployment);
    p->Text(r.kind);
    p->Text(r.target);
    p->Text(r.payload);
    p->Int(r.apply_from_round);
    p->Real(r.apply_after);
    p->Text(r.writer);
    p->Real(r.submitted_at);
    p->Text(r.status);
    p->Int(r.round);
    p->Text(r.reason);
  }
}

std::vector<EventRow> UnpackEvents(Unpacker* u) {
  std::vector<EventRow> rows(static_cast<std::size_t>(u->Int()));
  for (EventRow& r : rows) {
    r.id = u->Int();
    r.deployment = u->Text();
    r.kind = u->Text();
    r.target = u->Text();
    r.payload = u->Text();
    r.apply_from_round = static_cast<int>(u->Int());
    r.apply_after = u->Real();
    r.writer = u->Text();
    r.submitted_at = u->Real();
    r.status = u->Text();
    r.round = static_cast<int>(u->Int());
    r.reason = u->Text();
  }
  return rows;
}

}  // namespace

void ShareResumePoint(ResumePoint* point) {
  if (mpi::Size() <= 1) return;
  Packer p;
  if (mpi::IsRoot()) {
    PackStatus(point->status, &p);
    p.Int(point->round);
    PackEvents(point->applied, &p);
    p.Int(point->has_state ? 1 : 0);
    p.Text(point->state);
  }
  mpi::Broadcast(&p.bytes());
  mpi::Broadcast(&point->values);
  if (mpi::IsRoot()) return;
  Unpacker u(p.bytes());
  point->status = UnpackStatus(&u);
  point->round = static_cast<int>(u.Int());
  point->applied = UnpackEvents(&u);
  point->has_state = u.Int() != 0;
  point->state = u.Text();
}

void ShareEvents(Status* status, std::vector<EventRow>* rows) {
  if (mpi::Size() <= 1) return;
  Packer p;
  if (mpi::IsRoot()) {
    PackStatus(*status, &p);
    PackEvents(*rows, &p);
  }
  mpi::Broadcast(&p.bytes());
  if (mpi::IsRoot()) return;
  Unpacker u(p.bytes());
  *status = UnpackStatus(&u);
  *rows = UnpackEvents(&u);
}

std::int64_t ShareNextRound(std::int64_t round, double interval_seconds) {
  mpi::Broadcast(&round, interval_seconds + mpi::ExchangeTimeoutSeconds());
  return round;
}

}  // namespace dede::internal
