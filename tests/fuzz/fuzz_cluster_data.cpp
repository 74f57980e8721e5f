// cluster_scheduling data files: byte 0 picks the reader (throughput table, cluster spec, job
// trace, Philly trace); the rest is the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cluster_data.h"
#include "fuzz_input.h"

using namespace dede::cluster;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int pick = data[0] & 3;
  static const char* const kExt[] = {".json", ".yaml", ".csv", ".csv"};
  const std::string path = dede::fuzz::WriteInput(data + 1, size - 1, kExt[pick]);
  switch (pick) {
    case 0:
      (void)LoadThroughputs(path);
      break;
    case 1:
      (void)LoadClusterSpec(path);
      break;
    case 2:
      (void)LoadJobTrace(path);
      break;
    default:
      (void)LoadPhillyTrace(path);
      break;
  }
  return 0;
}
