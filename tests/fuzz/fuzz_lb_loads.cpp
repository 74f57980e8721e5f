// load_balancing inputs: the shard loads table or the example's random numbers (byte 0).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "lb_model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = dede::fuzz::WriteInput(data + 1, size - 1, ".csv");
  if (data[0] & 1) {
    std::vector<double> u;
    (void)dede::lb::LoadRandomNums(path, &u);
  } else {
    std::vector<std::vector<double>> loads;
    (void)dede::lb::LoadShardLoads(path, &loads);
  }
  return 0;
}
