// gpu_placement job traces (Dally's CSV and Tiresias' CSV, byte 0 picks) through the same
// LoadWorkload the plugin uses, every job of the trace kept.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_input.h"
#include "gpu_domain.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  dede::gpu::DomainSettings settings;
  settings.source = (data[0] & 1) ? "tiresias_csv" : "dally_csv";
  settings.trace = dede::fuzz::WriteInput(data + 1, size - 1, ".csv");
  settings.jobs = 0;
  int skipped = 0;
  (void)dede::gpu::LoadWorkload(settings, &skipped);
  return 0;
}
