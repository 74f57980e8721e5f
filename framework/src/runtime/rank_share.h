// What rank 0 of an `mpirun` launch reads from the database and the other processes need, to
// build the same state and solve the same rounds (mpi/world.h: rank 0 alone talks to the
// database). Each function is collective: every process calls it at the same point, and
// afterwards holds rank 0's values, bit for bit. In a world of one process they do nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dede/status.h"
#include "store/store.h"

namespace dede::internal {

// Where a resumed deployment starts: the last committed round, the events applied up to it
// (re-applied in order), the plugin's checkpoint and the allocation to warm-start from.
struct ResumePoint {
  Status status;  // rank 0's failure to read it, which every process then returns
  int round = -1;
  std::vector<EventRow> applied;
  bool has_state = false;
  std::string state;
  std::vector<double> values;
};
void ShareResumePoint(ResumePoint* point);

// The inbox events due this round (or rank 0's failure to read them).
void ShareEvents(Status* status, std::vector<EventRow>* rows);

// What rank 0's round loop tells the others: run this round next, or stop (kStopRounds). The
// others wait for it at most `interval_seconds` plus the exchange timeout (mpi::Broadcast).
constexpr std::int64_t kStopRounds = -1;
std::int64_t ShareNextRound(std::int64_t round, double interval_seconds);

}  // namespace dede::internal
