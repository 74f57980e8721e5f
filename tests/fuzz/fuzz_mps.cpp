// The MPS reader of the exact baseline.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dede/problem.h"
#include "exact/mps_reader.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dede::fuzz::WriteInput(data, size, ".mps");
  dede::Problem problem(1, 1);
  std::string error;
  if (dede::internal::ReadMps(path, &problem, &error)) {
    // A problem the reader accepts must also pass the model's own checks or say why not.
    (void)problem.Validate(&error);
  }
  return 0;
}
