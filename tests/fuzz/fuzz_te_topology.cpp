// traffic_engineering topologies: byte 0 picks the format (node-link JSON, edge CSV, GraphML,
// SNDlib) and the parallel-link rule; the rest is the file.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "te_data.h"

using namespace dede::te;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kExt[] = {".json", ".csv", ".graphml", ".txt"};
  static const TopologyFormat kFormat[] = {TopologyFormat::kJson,
                                           TopologyFormat::kEdgeCsv,
                                           TopologyFormat::kGraphml,
                                           TopologyFormat::kSndlib};
  const int pick = data[0] & 3;
  TopologyOptions options;
  options.format = (data[0] & 4) ? TopologyFormat::kAuto : kFormat[pick];
  options.parallel_links = (data[0] & 8) ? ParallelLinks::kSum : ParallelLinks::kReject;
  if (data[0] & 16) options.default_capacity = 10.0;
  const std::string path = dede::fuzz::WriteInput(data + 1, size - 1, kExt[pick]);
  (void)LoadTopology(path, options);
  return 0;
}
