// traffic_engineering data read against a topology: byte 0 picks the reader (traffic matrix
// CSV, SNDlib demands, a wide traffic series, a path file); the rest is the file. The topology
// is a fixed four-node ring with named nodes.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "fuzz_input.h"
#include "te_data.h"

using namespace dede::te;

namespace {
const Topology& Ring() {
  static const Topology topology = [] {
    const char text[] =
        R"({"directed": false, "nodes": [{"id": "A"}, {"id": "B"}, {"id": "C"}, {"id": "D"}],)"
        R"( "links": [{"source": "A", "target": "B", "capacity": 10},)"
        R"( {"source": "B", "target": "C", "capacity": 10},)"
        R"( {"source": "C", "target": "D", "capacity": 5},)"
        R"( {"source": "D", "target": "A", "capacity": 5}]})";
    const std::string path = dede::fuzz::WriteInput(
        reinterpret_cast<const std::uint8_t*>(text), sizeof(text) - 1, "-ring.json");
    auto loaded = LoadTopology(path);
    if (!loaded.ok()) __builtin_trap();
    return loaded.value();
  }();
  return topology;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const Topology& topology = Ring();
  const std::string path = dede::fuzz::WriteInput(data + 1, size - 1, ".csv");
  switch (data[0] & 3) {
    case 0:
      (void)LoadTrafficMatrix(path, topology);
      break;
    case 1:
      (void)LoadSndlibDemands(path, topology);
      break;
    case 2:
      (void)LoadTrafficSeries(path, topology, data[0] >> 4, (data[0] & 4) ? 2 : -1);
      break;
    default:
      (void)LoadPaths(path, topology);
      break;
  }
  return 0;
}
