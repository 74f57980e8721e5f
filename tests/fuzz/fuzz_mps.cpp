// The MPS reader of the exact baseline (our own since CoinMpsIO crashed on malformed files).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "dede/problem.h"
#include "exact/mps_reader.h"
#include "fuzz_input.h"

namespace {

// Reads the file in `format`; a problem the reader accepts must pass the model's own checks,
// or the reader let something through that its contract rejects.
void ReadAndCheck(const std::string& path, dede::internal::MpsFormat format) {
  dede::Problem problem(1, 1);
  std::string error;
  if (!dede::internal::ReadMps(path, &problem, &error, format)) return;
  if (!problem.Validate(&error)) {
    std::fprintf(stderr, "ReadMps accepted a problem that does not validate: %s\n", error.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dede::fuzz::WriteInput(data, size, ".mps");
  // kAuto reads as free format and, if that fails, as fixed format; kFixed also covers the
  // fixed-format reader on inputs that free format accepts.
  ReadAndCheck(path, dede::internal::MpsFormat::kAuto);
  ReadAndCheck(path, dede::internal::MpsFormat::kFixed);
  return 0;
}
