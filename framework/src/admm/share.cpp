// The exchanges between processes after each half step (more than one process only; see
// block_executor.h). An ordinary iteration sends the cut: the x of every pair whose demand
// block lives on another process goes there after the resource half step, and its target
// z - u comes back after the demand half step, along a route set up once (BuildRoute). The
// other processes' blocks' state is then stale here, and stays so: a check sends the blocks'
// norms beside the cut and merges the values of the trace's objective from their owners
// (ShareValues: each variable's bits from the one process that gives it), as the allocation
// at the end and the repair's rounds do, and the targets rewritten after a penalty update go
// to their owners along the route (WriteOwnTargets). Since nothing reads the other processes'
// blocks, a process keeps only their id and work (DropOthersBlocks, in Build), and of the
// consensus state only its own: z and u of its own demand blocks' pairs and of the global
// pairs (HoldOwnPairs), and the resource side's x and targets of its own resource blocks
// plus the halo the route writes (LocalizeSide0). Anderson and
// the per-block penalty balancing read every pair: with them, every process keeps every
// block, the half steps share the whole state (ShareAll; Consolidate when a solve starts),
// and every process runs them as one would.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "admm/admm_engine.h"

namespace dede::internal {

using namespace engine;

bool AdmmEngine::SameProblemEverywhere(BlockExecutor& executor, std::string* error) const {
  const std::uint64_t mine = problem_.Fingerprint();
  // In two 32-bit halves, each exact in a double.
  const std::vector<double> all = executor.AllGather(
      {static_cast<double>(mine >> 32), static_cast<double>(mine & 0xffffffffu)});
  const auto digest = [&](std::size_t r) {
    return (static_cast<std::uint64_t>(all[2 * r]) << 32) |
           static_cast<std::uint64_t>(all[2 * r + 1]);
  };
  const auto hex = [](std::uint64_t v) {
    char text[17];
    std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(v));
    return std::string(text);
  };
  std::string differ;
  for (std::size_t r = 1; r < all.size() / 2; ++r) {
    if (digest(r) == digest(0)) continue;
    differ += (differ.empty() ? "" : ", ") + std::string("process ") + std::to_string(r) + " " +
              hex(digest(r));
  }
  if (differ.empty()) return true;
  *error = "the processes built different problems from the deployment (digest of process 0 " +
           hex(digest(0)) + "; " + differ +
           "): each process builds the problem and every round's parameters on its own, so the "
           "plugin must derive them from its settings, the deployment's seed and the round "
           "alone (no clock, no unseeded random numbers, no file that differs between hosts)";
  return false;
}

void AdmmEngine::BuildRoute() {
  const int n = executor_->processes();
  if (n <= 1) return;
  const int me = executor_->rank();
  std::vector<std::vector<std::uint32_t>> to(static_cast<std::size_t>(n));
  std::vector<std::vector<std::uint32_t>> from(static_cast<std::size_t>(n));
  // Pair order on both ends: the lists of a sender and its receiver match.
  for (std::size_t p = 0; p < pairs_.size(); ++p) {
    const Pair& pr = pairs_[p];
    if (pr.block[0] < 0) continue;  // x is alpha, which every process computes
    const std::uint32_t j = side0_pos_[p];
    const int o0 = executor_->Owner(0, pr.block[0]);
    const auto link = [&](int r) {
      if (me == o0) {
        to[static_cast<std::size_t>(r)].push_back(j);
      } else if (me == r) {
        from[static_cast<std::size_t>(o0)].push_back(j);
      }
    };
    if (pr.block[1] >= 0) {
      const int o1 = executor_->Owner(1, pr.block[1]);
      if (o1 != o0) link(o1);
      continue;
    }
    // A global copy t_b paired with alpha on the demand side: every process forms alpha from
    // every t_b's x (UpdateGlobalAlpha).
    for (int r = 0; r < n; ++r)
      if (r != o0) link(r);
  }
  if (DropsOthersBlocks()) LocalizeSide0(&to, &from);
  executor_->SetRoute(std::move(to), std::move(from));
  std::vector<std::uint8_t>& var_home = *layout_.mutable_var_home();
  var_home.assign(static_cast<std::size_t>(problem_.num_variables()), 0);
  for (int s = 0; s < 2; ++s) {
    ForEachBlockLocal(
        s,
        [&](const Block& block) {
          for (const BlockVar& bv : block.vars) {
            if (bv.var < 0) continue;
            std::uint8_t& home = var_home[static_cast<std::size_t>(bv.var)];
            if (bv.pair >= 0) {
              home |= ProcessLayout::kHomeMine[s];
            } else {
              home = static_cast<std::uint8_t>(
                  ProcessLayout::kHomeLocal | (s == 1 ? ProcessLayout::kHomeLocalSide1 : 0) |
                  ProcessLayout::kHomeMine[0] | ProcessLayout::kHomeMine[1]);
            }
          }
        },
        &order_[s]);
  }
  // The locals of the other processes' blocks.
  for (VarId v = 0; v < problem_.num_variables(); ++v) {
    if (problem_.IsEntry(v)) continue;
    std::uint8_t& home = var_home[static_cast<std::size_t>(v)];
    if ((home & ProcessLayout::kHomeLocal) == 0)
      home = problem_.variable(v).owner.side == Side::kDemand
                 ? ProcessLayout::kHomeLocal | ProcessLayout::kHomeLocalSide1
                 : ProcessLayout::kHomeLocal;
  }
  // With t_b on the demand side, alpha (resource side) is formed from their z and u.
  global_pair_.clear();
  if (global_side_ == 1) {
    global_pair_.assign(blocks_[1].size(), -1);
    for (std::size_t b = 0; b < blocks_[1].size(); ++b) {
      for (const BlockVar& bv : blocks_[1][b].vars)
        if (bv.var < 0 && bv.pair >= 0) global_pair_[b] = bv.pair;
    }
  }
  layout_.SetRouteReady(true);
}

void AdmmEngine::ShareHalfStep(int side, bool measure, std::vector<BlockStatus>* status) {
  if (executor_->processes() <= 1) return;
  // Anderson reads every pair at every iteration, the per-block penalty balancing at the
  // checks.
  if (layout_.route_ready() && !anderson_ && (!measure || balanced_side_ < 0)) {
    ShareCut(side, measure, status);
    ++cut_shares_;
  } else {
    ShareAll(side, measure, status);
    ++whole_shares_;
  }
}

void AdmmEngine::ShareCut(int side, bool measure, std::vector<BlockStatus>* status) {
  std::vector<BlockStatus>& st = *status;
  BlockExecutor::Exchange exchange;
  if (side == 1 && (measure || !global_pair_.empty())) {
    // The statuses, the norms on a check, and the global copies' z and u.
    const std::size_t head = 1 + (measure ? Norms::kWidth : 0);
    // Block b's global copy's pair, or -1.
    const auto global_pair = [&](int b) { return global_pair_.empty() ? -1 : global_pair_[b]; };
    exchange.width = [&](int b) { return head + (global_pair(b) >= 0 ? 2 : 0); };
    exchange.pack = [&](int b, double* out) {
      out[0] = static_cast<double>(st[b]);
      if (measure) norms_[b].Put(out + 1);
      const int p = global_pair(b);
      if (p < 0) return;
      out[head] = Ps(p).z;
      out[head + 1] = Ps(p).u;
    };
    exchange.unpack = [&](int b, const double* in) {
      st[b] = static_cast<BlockStatus>(static_cast<int>(in[0]));
      if (measure) norms_[b] = Norms::From(in + 1);
      const int p = global_pair(b);
      if (p < 0) return;
      Ps(p).z = in[head];
      Ps(p).u = in[head + 1];
    };
    executor_->Share(side, exchange);
  } else {
    // The statuses only when some block did not solve (one reduction otherwise): the others'
    // entries stay kOptimal, which is all the half step asks of a block that solved.
    unsigned bits = 0;
    for (int b : order_[side]) {
      const BlockStatus s = st[static_cast<std::size_t>(b)];
      if (s != BlockStatus::kOptimal && s != BlockStatus::kNodeLimit) bits = 1;
    }
    if (executor_->Agree(bits) != 0) {
      exchange.width = [](int) { return std::size_t{1}; };
      exchange.pack = [&](int b, double* out) { out[0] = static_cast<double>(st[b]); };
      exchange.unpack = [&](int b, const double* in) {
        st[b] = static_cast<BlockStatus>(static_cast<int>(in[0]));
      };
      executor_->Share(side, exchange);
    }
  }
  executor_->Route(side == 0 ? side0_x_.data() : Targets(), /*backward=*/side == 1);
  layout_.SetReplicaStale(side, true);
}

void AdmmEngine::WriteOwnTargets() {
  // The own demand blocks' pairs (wherever their resource block lives) and the global pairs
  // whose demand side is alpha (every process holds those), then each its owner.
  double* t = Targets();
  ForEachBlockLocal(
      1,
      [&](const Block& block) {
        for (const BlockVar& bv : block.vars) {
          if (bv.pair < 0) continue;
          const std::size_t i = Local(bv.pair);
          const std::uint32_t j = side0_pos_[i];
          if (j != kNoSlot) t[j] = ps_[i].z - ps_[i].u;
        }
      },
      &order_[1]);
  if (global_side_ == 0) {
    for (int p : global_pairs_) t[Side0Pos(p)] = Ps(p).z - Ps(p).u;
  }
  executor_->Route(t, /*backward=*/true);
  targets_stale_ = false;
}

void AdmmEngine::ShareValues(std::vector<double>* values, int entry_side, bool to_root) {
  ShareVariables(-1, entry_side, values, nullptr, to_root);
}

void AdmmEngine::ShareVariables(int side,
                                int entry_side,
                                std::vector<double>* values,
                                std::vector<std::uint8_t>* flags,
                                bool to_root) {
  const std::uint8_t mine = ProcessLayout::kHomeMine[entry_side];
  double* x = values->data();
  const std::size_t n = values->size();
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1 << 14),
                    [&](const tbb::blocked_range<std::size_t>& range) {
                      for (std::size_t v = range.begin(); v != range.end(); ++v) {
                        const std::uint8_t home = layout_.var_home()[v];
                        if ((home & mine) != 0) continue;
                        bool given = true;
                        if (side >= 0) {
                          given =
                              (home & ProcessLayout::kHomeLocal) == 0
                                  ? side == entry_side
                                  : ((home & ProcessLayout::kHomeLocalSide1) != 0) == (side == 1);
                        }
                        if (given) x[v] = 0.0;
                      }
                    });
  executor_->MergeBits(x, n * sizeof(double), to_root);
  if (flags == nullptr) return;
  for (std::size_t b = 0; b < flags->size(); ++b)
    if (!executor_->Owns(side, static_cast<int>(b))) (*flags)[b] = 0;
  executor_->MergeBits(flags->data(), flags->size());
}

bool AdmmEngine::DropsOthersBlocks() const {
  return executor_->processes() > 1 && options_.anderson_memory == 0 &&
         options_.block_rho_balancing == BlockBalancing::kOff;
}

void AdmmEngine::DropOthersBlocks() {
  if (!layout_.route_ready() || !DropsOthersBlocks()) return;
  layout_.SetPartial(true);
  for (int s = 0; s < 2; ++s) {
    layout_.SetReplicaStale(s, true);
    for (Block& block : blocks_[s]) {
      if (executor_->Owns(s, block.id.index)) continue;
      std::vector<BlockVar>().swap(block.vars);
      std::vector<ConstraintId>().swap(block.constraints);
      std::vector<int>().swap(block.log_terms);
      block.problem = BlockProblem{};
      std::vector<double>().swap(block.v);
      block.extra.reset();
      block.global_row = block.global_expr = -1;
      block.has_integers = false;
    }
  }
}

std::pair<int, int> AdmmEngine::OwnBlocks(int side) const {
  const int nb = static_cast<int>(blocks_[side].size());
  int first = nb, last = 0;
  for (int b = 0; b < nb; ++b) {
    if (!executor_->Owns(side, b)) continue;
    first = std::min(first, b);
    last = b + 1;
  }
  return {first, last};
}

void AdmmEngine::LocalizeSide0(std::vector<std::vector<std::uint32_t>>* to,
                               std::vector<std::vector<std::uint32_t>>* from) {
  // The own resource blocks are one range of block indices, so their slots one range of the
  // whole layout.
  const auto [first, last] = OwnBlocks(0);
  const std::size_t base = first < last ? side0_offset_[static_cast<std::size_t>(first)] : 0;
  const std::size_t own = first < last ? side0_offset_[static_cast<std::size_t>(last)] - base : 0;
  // What this process sends lies in its own range.
  for (std::vector<std::uint32_t>& list : *to)
    for (std::uint32_t& j : list) j = static_cast<std::uint32_t>(j - base);
  // What it receives is the halo, in the route's order: (whole position, local position).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> halo;
  std::uint32_t next = static_cast<std::uint32_t>(own);
  for (std::vector<std::uint32_t>& list : *from) {
    for (std::uint32_t& j : list) {
      halo.emplace_back(j, next);
      j = next++;
    }
  }
  std::sort(halo.begin(), halo.end());
  // A pair whose x this process neither owns nor receives is not read here (kNoSlot: it is
  // not held either, HoldOwnPairs).
  for (std::uint32_t& j : side0_pos_) {
    if (j == kNoSlot) continue;
    if (j >= base && j - base < own) {
      j = static_cast<std::uint32_t>(j - base);
      continue;
    }
    const auto it = std::lower_bound(halo.begin(), halo.end(), std::make_pair(j, std::uint32_t{0}));
    j = it != halo.end() && it->first == j ? it->second : kNoSlot;
  }
  side0_base_ = base;
  side0_size_ = next;
}

void AdmmEngine::HoldOwnPairs() {
  if (!layout_.partial()) return;
  // The own demand blocks are one range of block indices (the executor's), so their entries'
  // pairs are one range of pair numbers.
  const auto [first, last] = OwnBlocks(1);
  const std::size_t entry_pairs = layout_.entry_pairs();
  const auto entries = pairs_.begin() + static_cast<std::ptrdiff_t>(entry_pairs);
  const auto begin = std::partition_point(
      pairs_.begin(), entries, [&](const Pair& pr) { return pr.block[1] < first; });
  const auto end =
      std::partition_point(begin, entries, [&](const Pair& pr) { return pr.block[1] < last; });
  const auto held_begin = static_cast<std::size_t>(begin - pairs_.begin());
  const auto held_count = static_cast<std::size_t>(end - begin);
  layout_.HoldEntryPairs(held_begin, held_count);
  // The resource side's positions of the held pairs, in the held layout.
  std::vector<std::uint32_t> pos(layout_.held_pairs());
  std::copy_n(
      side0_pos_.begin() + static_cast<std::ptrdiff_t>(held_begin), held_count, pos.begin());
  std::copy(side0_pos_.begin() + static_cast<std::ptrdiff_t>(entry_pairs),
            side0_pos_.end(),
            pos.begin() + static_cast<std::ptrdiff_t>(held_count));
  side0_pos_ = std::move(pos);
}

void AdmmEngine::Consolidate() {
  for (int s = 0; s < 2; ++s)
    if (layout_.replica_stale(s)) ShareAll(s, /*measure=*/false, nullptr);
}

void AdmmEngine::ShareAll(int side, bool measure, std::vector<BlockStatus>* status) {
  layout_.SetReplicaStale(side, false);
  std::vector<Block>& blocks = blocks_[side];
  const std::size_t with_status = status != nullptr ? 1 : 0;
  BlockExecutor::Exchange exchange;
  if (side == 0) {
    // The status, then x.
    exchange.width = [&](int b) { return with_status + blocks[b].vars.size(); };
    exchange.pack = [&](int b, double* out) {
      if (status != nullptr) *out++ = static_cast<double>((*status)[b]);
      const double* x = Values(0, blocks[b]);
      std::copy(x, x + blocks[b].vars.size(), out);
    };
    exchange.unpack = [&](int b, const double* in) {
      if (status != nullptr) (*status)[b] = static_cast<BlockStatus>(static_cast<int>(*in++));
      std::copy(in, in + blocks[b].vars.size(), Values(0, blocks[b]));
    };
    executor_->Share(0, exchange);
    return;
  }
  // The status, the norms on a check, the block's own values (unless its values are its
  // pairs' z), then z and u of each slot (0 for a local).
  const std::size_t head = with_status + (measure ? Norms::kWidth : 0);
  exchange.width = [&](int b) {
    const Block& block = blocks[b];
    return head + block.vars.size() * (block.values_in_pairs ? 2 : 3);
  };
  exchange.pack = [&](int b, double* out) {
    const Block& block = blocks[b];
    if (status != nullptr) *out++ = static_cast<double>((*status)[b]);
    if (measure) {
      norms_[b].Put(out);
      out += Norms::kWidth;
    }
    if (!block.values_in_pairs) out = std::copy(block.v.begin(), block.v.end(), out);
    for (const BlockVar& bv : block.vars) {
      *out++ = bv.pair >= 0 ? Ps(bv.pair).z : 0.0;
      *out++ = bv.pair >= 0 ? Ps(bv.pair).u : 0.0;
    }
  };
  exchange.unpack = [&](int b, const double* in) {
    Block& block = blocks[b];
    if (status != nullptr) (*status)[b] = static_cast<BlockStatus>(static_cast<int>(*in++));
    if (measure) {
      norms_[b] = Norms::From(in);
      in += Norms::kWidth;
    }
    if (!block.values_in_pairs) {
      std::copy(in, in + block.vars.size(), block.v.begin());
      in += block.vars.size();
    }
    for (const BlockVar& bv : block.vars) {
      const double z = *in++;
      const double u = *in++;
      if (bv.pair < 0) continue;
      Ps(bv.pair).z = z;
      Ps(bv.pair).u = u;
      const std::uint32_t j = Side0Pos(bv.pair);
      if (j != kNoSlot) Targets()[j] = z - u;
    }
  };
  executor_->Share(1, exchange);
}

}  // namespace dede::internal
