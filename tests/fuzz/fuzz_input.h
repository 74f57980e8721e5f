// Shared by the libFuzzer harnesses: the readers under test take file paths, so each input is
// written to a per-process scratch file (in /dev/shm when it exists) before the call. The
// first byte of an input picks the reader (or the format) where a harness covers several.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace dede::fuzz {

// Writes data[0, size) to a scratch file named after `suffix` and returns its path.
inline std::string WriteInput(const std::uint8_t* data,
                              std::size_t size,
                              const std::string& suffix) {
  static const std::string dir = std::filesystem::is_directory("/dev/shm")
                                     ? "/dev/shm"
                                     : std::filesystem::temp_directory_path().string();
  const std::string path = dir + "/dede-fuzz-" + std::to_string(::getpid()) + suffix;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) __builtin_trap();  // the harness itself is broken, not the reader
  if (size > 0 && std::fwrite(data, 1, size, f) != size) __builtin_trap();
  std::fclose(f);
  return path;
}

}  // namespace dede::fuzz
