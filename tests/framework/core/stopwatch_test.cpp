// SharedTimeLimit (dede/stopwatch.h): a round's time limit shared over solves run a few at a time.
#include "dede/stopwatch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>

namespace dede {
namespace {

// Five solves two at a time from a 90 s limit with no time spent: the waves left are 3, 2, 2,
// 1, 1 as they start, so the shares are 30, 45, 45, 90, 90 s (less the microseconds the test
// itself takes); time already spent comes off the limit before it is divided.
TEST(SharedTimeLimit, DividesWhatIsLeftOverTheWavesStillToRun) {
  SharedTimeLimit limit(90.0, 5, 2);
  const double expected[] = {30.0, 45.0, 45.0, 90.0, 90.0};
  for (double e : expected) EXPECT_NEAR(limit.NextShare(), e, 1e-2);
  // Past the last solve the share stays the whole remainder.
  EXPECT_NEAR(limit.NextShare(), 90.0, 1e-2);

  SharedTimeLimit spent(10.0, 2, 1, SteadyClock::now() - std::chrono::seconds(4));
  EXPECT_NEAR(spent.NextShare(), 3.0, 1e-2);  // 6 s left over two waves
  SharedTimeLimit over(1.0, 1, 1, SteadyClock::now() - std::chrono::seconds(2));
  EXPECT_LE(over.NextShare(), 0.0);  // nothing left

  SharedTimeLimit none(std::numeric_limits<double>::infinity(), 3, 1);
  EXPECT_EQ(none.NextShare(), std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace dede
