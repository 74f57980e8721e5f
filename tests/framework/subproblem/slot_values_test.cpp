// SlotValues placed in storage it does not own (the ADMM engine's per-side cost arrays): reads
// and writes go there, and whatever needs room of its own, or copies, leaves it intact.
#include <gtest/gtest.h>

#include <vector>

#include "subproblem/block_problem.h"

namespace dede::internal {
namespace {

TEST(SlotValues, PlacedValuesLiveInTheCallersStorageUntilTheyNeedTheirOwn) {
  std::vector<double> storage(6, -1.0);
  SlotValues spread;
  spread.assign(3, 2.5);  // uniform: placing spreads the value
  spread.Place(storage.data());
  EXPECT_TRUE(spread.placed());
  EXPECT_EQ(storage, (std::vector<double>{2.5, 2.5, 2.5, -1.0, -1.0, -1.0}));
  spread.set(1, 7.0);  // written in place
  EXPECT_EQ(storage[1], 7.0);

  SlotValues slots(std::vector<double>{1.0, 2.0, 3.0});
  slots.Place(storage.data() + 3);
  EXPECT_EQ(slots.data(), storage.data() + 3);
  EXPECT_EQ(storage[5], 3.0);
  // A copy owns its values; the original stays where it was placed.
  const SlotValues copy = slots;
  EXPECT_FALSE(copy.placed());
  EXPECT_EQ(copy.ToVector(), (std::vector<double>{1.0, 2.0, 3.0}));
  // Unplace takes the values back (the storage may then go), and growing does too.
  slots.Unplace();
  EXPECT_FALSE(slots.placed());
  storage[3] = 99.0;
  EXPECT_EQ(slots[0], 1.0);
  spread.resize(4);
  EXPECT_FALSE(spread.placed());
  EXPECT_EQ(spread.ToVector(), (std::vector<double>{2.5, 7.0, 2.5, 0.0}));
  // Compact to one value releases the placed storage without freeing it.
  SlotValues same(std::vector<double>{1.0, 2.0});
  same.Place(storage.data());
  same.set(1, 1.0);
  same.Compact();
  EXPECT_TRUE(same.uniform());
  EXPECT_EQ(same.value(), 1.0);
}

}  // namespace
}  // namespace dede::internal
