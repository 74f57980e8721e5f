// Which part of the ADMM engine's state this process holds, and where it is held.
//
// On one process, or with options that read the whole state on every process (Anderson,
// per-block penalty factors: see share.cpp), every process holds every block and every
// consensus pair, pair p at position p. Otherwise (partial) a process keeps only its own
// blocks (the executor's partition) and, of the pairs, the entries' pairs of its own demand
// blocks (one range, since Decouple numbers the entries' pairs by demand block) followed by
// every global pair. Pair numbers stay global (BlockVar::pair, the route); Local(p) is pair
// p's position in the held arrays (the engine's ps_, side0_pos_, the bound's boxes).
//
// The half steps are instantiated once per layout (WithIndex): with every pair held at its
// own number the position costs nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "admm/block_executor.h"

namespace dede::internal {

class ProcessLayout {
 public:
  // Pair p's position when every pair is held at its own number.
  struct WholeIndex {
    std::size_t operator()(int p) const { return static_cast<std::size_t>(p); }
  };
  // Pair p's position in a partial layout.
  struct HeldIndex {
    const ProcessLayout* layout;
    std::size_t operator()(int p) const { return layout->Local(p); }
  };

  // The executor whose partition says which blocks this process owns (it outlives the
  // layout's use: the engine holds both).
  void SetExecutor(const BlockExecutor* executor) { executor_ = executor; }
  // Every process's pairs (Decouple): the entries' pairs first, then the global pairs. Every
  // pair is held at its own number until HoldEntryPairs.
  void SetPairs(std::size_t num_pairs, std::size_t entry_pairs) {
    num_pairs_ = num_pairs;
    entry_pairs_ = entry_pairs;
    held_begin_ = 0;
    held_count_ = entry_pairs;
  }
  // Keeps [begin, begin + count) of the entries' pairs, then every global pair (partial only).
  void HoldEntryPairs(std::size_t begin, std::size_t count) {
    held_begin_ = begin;
    held_count_ = count;
  }
  void SetPartial(bool partial) { partial_ = partial; }

  // Whether this process keeps only its own blocks and their pairs.
  bool partial() const { return partial_; }
  std::size_t num_pairs() const { return num_pairs_; }      // every process's
  std::size_t entry_pairs() const { return entry_pairs_; }  // global pairs are numbered from here
  std::size_t held_begin() const { return held_begin_; }    // the first entry pair held
  std::size_t held_count() const { return held_count_; }    // the entry pairs held
  // How many pairs this process holds: the length of the arrays by Local(pair).
  std::size_t held_pairs() const { return held_count_ + (num_pairs_ - entry_pairs_); }
  std::size_t Local(int p) const {
    const auto q = static_cast<std::size_t>(p);
    return q < entry_pairs_ ? q - held_begin_ : q - entry_pairs_ + held_count_;
  }
  // Whether this process holds block b of `side` (its own, or every block when not partial).
  bool Held(int side, int b) const { return !partial_ || executor_->Owns(side, b); }
  // With more than one process: whether the route of the cut is set up (BuildRoute), so that
  // the half steps of ordinary iterations may send the cut only.
  bool route_ready() const { return route_ready_; }
  void SetRouteReady(bool ready) { route_ready_ = ready; }
  // Whether the other processes' blocks' state of `side` is stale here (since a half step
  // sent only the cut, or from the start when partial), and of either side.
  bool replica_stale(int side) const { return replica_stale_[side]; }
  void SetReplicaStale(int side, bool stale) { replica_stale_[side] = stale; }
  bool ReplicaStale() const { return replica_stale_[0] || replica_stale_[1]; }
  // By variable, which blocks that give it this process owns (BuildRoute): kHomeMine[s] for
  // an entry whose side-s block is this process's, both bits for a local of its own block;
  // kHomeLocal and kHomeLocalSide1 say what a local is.
  static constexpr std::uint8_t kHomeMine[2] = {1, 2};
  static constexpr std::uint8_t kHomeLocal = 4, kHomeLocalSide1 = 8;
  const std::vector<std::uint8_t>& var_home() const { return var_home_; }
  std::vector<std::uint8_t>* mutable_var_home() { return &var_home_; }
  // f(index) with the index of this layout (WholeIndex or HeldIndex).
  template <typename F>
  decltype(auto) WithIndex(F&& f) const {
    return partial_ ? std::forward<F>(f)(HeldIndex{this}) : std::forward<F>(f)(WholeIndex{});
  }

 private:
  const BlockExecutor* executor_ = nullptr;
  bool partial_ = false;
  std::size_t num_pairs_ = 0;
  std::size_t entry_pairs_ = 0;
  std::size_t held_begin_ = 0;
  std::size_t held_count_ = 0;
  bool route_ready_ = false;
  bool replica_stale_[2] = {false, false};
  std::vector<std::uint8_t> var_home_;
};

}  // namespace dede::internal
