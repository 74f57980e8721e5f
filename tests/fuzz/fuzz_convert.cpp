// `dede convert` (tools/dede/convert*.cpp) on any bytes: byte 0 picks the shape (philly, gavel,
// dally as CSV, dally as cluster-sim JSON, tiresias, helios, alibaba) and whether the same bytes
// are also read as the node list; byte 1 flips the record classes' keep/drop choices. The
// converted files go to a per-process scratch directory; then the gpu_placement sidecar reader
// reads what was written.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "../../tools/dede/convert.h"
#include "fuzz_input.h"
#include "gpu_sim.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  static const char* kShapes[8] = {
      "philly", "gavel", "dally", "dally", "tiresias", "helios", "alibaba", "alibaba"};
  const int pick = data[0] & 7;
  dede::tools::ConvertOptions options;
  options.shape = kShapes[pick];
  options.input = dede::fuzz::WriteInput(data + 2,
                                         size - 2,
                                         pick == 3   ? ".json"
                                         : pick == 1 ? ".trace"
                                                     : ".csv");
  static const std::string out =
      (std::filesystem::temp_directory_path() / ("dede-fuzz-convert-" + std::to_string(::getpid())))
          .string();
  options.output_dir = out;
  if (pick <= 1) options.throughputs = DEDE_FUZZ_DATA_DIR "/convert/philly_throughputs.csv";
  if ((data[0] & 8) != 0 && pick >= 2) options.nodes = options.input;
  const auto& classes = dede::tools::RecordClasses();
  for (std::size_t k = 0; k < classes.size() && k < 8; ++k) {
    if ((data[1] >> k) & 1) {
      (classes[k].kept_by_default ? options.drop : options.keep).push_back(classes[k].name);
    }
  }
  dede::tools::ConvertReport report;
  if (dede::tools::Convert(options, &report).ok() && pick >= 2) {
    dede::gpu::TraceMeta meta;
    std::string error;
    (void)dede::gpu::ReadTraceMeta(report.main_output, &meta, &error);
  }
  return 0;
}
