// dede_eval's load-balancing part (RunLoadBalancing) at size small, compiled in.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "eval.h"

namespace dede::eval {
namespace {

TEST(LoadBalancingEval, SmallEmitsEveryMethodFeasible) {
  EvalOptions options;
  options.size = "small";
  options.threads = {1, 2};
  options.exact_time_limit = 20;
  options.rounds = 3;
  options.repo_dir = DEDE_SOURCE_DIR;
  options.shared_dir = "/nonexistent";
  std::vector<EvalRow> rows;
  ASSERT_TRUE(RunLoadBalancing(options, [&](const EvalRow& r) { rows.push_back(r); }).ok());
  std::set<std::string> methods;
  std::map<std::pair<std::string, int>, double> round0;
  for (const EvalRow& r : rows) {
    EXPECT_EQ(r.domain, "load_balancing");
    EXPECT_EQ(r.objective, "movements");
    EXPECT_TRUE(r.feasible) << r.method << " round " << r.round << ": " << r.note;
    EXPECT_GE(r.value, 0);
    EXPECT_EQ(r.value, std::round(r.value));
    EXPECT_GE(r.seconds, 0);
    methods.insert(r.method);
    if (r.reference != "none" && r.value > 0) {
      // quality = exact / value, undefined when exact is 0.
      if (std::isnan(r.quality))
        EXPECT_NE(r.note.find("exact 0"), std::string::npos) << r.note;
      else
        EXPECT_GT(r.quality, 0);
    }
    if (r.round == 0) round0[{r.method, r.threads}] = r.value;
  }
  EXPECT_EQ(methods,
            (std::set<std::string>{"dede", "dede-nokeep", "exact", "greedy", "pop-4", "pop-16"}));
  EXPECT_EQ(rows.size(), 3u * 7u);  // 3 rounds x (dede x 2 thread counts, 5 others)
  // Round 0 is the same problem for every method (the initial placement); exact, when proven
  // optimal, is a lower bound for all.
  const double exact0 = round0.at({"exact", 1});
  EXPECT_GT(exact0, 0);
  for (const EvalRow& r : rows) {
    if (r.method == "exact" && r.round == 0 && r.reference != "none" && !std::isnan(r.quality)) {
      for (const auto& [key, value] : round0) EXPECT_GE(value, exact0) << key.first;
    }
  }
  EXPECT_EQ(round0.at({"dede", 1}), round0.at({"dede", 2}));
  // A size that does not exist is an error naming the sizes.
  options.size = "huge";
  const Status bad = RunLoadBalancing(options, [](const EvalRow&) {});
  EXPECT_NE(bad.message().find("small, medium, paper"), std::string::npos);
}

}  // namespace
}  // namespace dede::eval
