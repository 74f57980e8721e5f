#include "store/writer_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

namespace dede::internal {

Result<WriterLock> WriterLock::Acquire(const std::string& database) {
  WriterLock lock;
  if (database.empty() || database == ":memory:") return lock;
  lock.path_ = database + ".lock";
  lock.fd_ = ::open(lock.path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock.fd_ < 0) {
    // Named as the user configured it: the lock file is a detail beside the database.
    const int error = errno;
    const std::filesystem::path dir = std::filesystem::path(database).parent_path();
    std::error_code ec;
    std::string why = std::strerror(error);
    if (error == ENOENT && !dir.empty() && !std::filesystem::is_directory(dir, ec)) {
      why = "its directory " + dir.string() + " does not exist";
    } else if (error == EACCES || error == EROFS) {
      why = "its directory " + (dir.empty() ? std::string(".") : dir.string()) +
            " is not writable (" + why + ")";
    }
    return FailedPrecondition("storage.database = '" + database +
                              "': cannot create the database: " + why + " (writer lock " +
                              lock.path_ + ")");
  }
  if (::flock(lock.fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    std::string holder;
    char buffer[64] = {};
    if (::pread(lock.fd_, buffer, sizeof(buffer) - 1, 0) > 0) holder = buffer;
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    if (error == EWOULDBLOCK) {
      return FailedPrecondition(
          database + " is being written by another dede run" +
          (holder.empty() ? "" : " (pid " + holder + ")") +
          ": one writer per database; stop it first (its lock: " + lock.path_ + ")");
    }
    return FailedPrecondition("storage.database = '" + database +
                              "': cannot take the writer lock: " + std::strerror(error) + " (" +
                              lock.path_ + ")");
  }
  // The holder's pid, for the message a second writer gets (advisory: the lock is the flock).
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock.fd_, 0) == 0) {
    (void)!::pwrite(lock.fd_, pid.data(), pid.size(), 0);
  }
  return lock;
}

WriterLock::WriterLock(WriterLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

WriterLock& WriterLock::operator=(WriterLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

WriterLock::~WriterLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace dede::internal
