// One writer per deployment database: `dede run` holds an exclusive advisory lock (flock) on
// "<database>.lock" for as long as it runs, so a second `dede run` of the same deployment is
// refused before it solves anything, naming the process that holds it. The lock goes away
// with the process (also on kill -9); the file stays and is reused.
#pragma once

#include <string>

#include "dede/status.h"

namespace dede::internal {

class WriterLock {
 public:
  // Takes the lock for `database` (":memory:" and "" need none: an empty lock). Fails with
  // FailedPrecondition when another process holds it.
  static Result<WriterLock> Acquire(const std::string& database);

  WriterLock() = default;
  WriterLock(WriterLock&& other) noexcept;
  WriterLock& operator=(WriterLock&& other) noexcept;
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;
  ~WriterLock();

  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace dede::internal
