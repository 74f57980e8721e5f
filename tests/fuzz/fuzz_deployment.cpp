// The deployment loader (YAML, every option and its bounds) on arbitrary text.
#include <cstddef>
#include <cstdint>

#include "config/deployment.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dede::fuzz::WriteInput(data, size, ".yaml");
  (void)dede::internal::LoadDeployment(path);
  return 0;
}
