#include "store/file_access.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace dede::internal {
namespace {

namespace fs = std::filesystem;

std::string DirectoryOf(const std::string& path) {
  const std::string dir = fs::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// "" if the calling process may write `path`, else why not (EROFS on a read-only mount even
// for root; EACCES from the permissions otherwise).
std::string WriteError(const std::string& path) {
  if (access(path.c_str(), W_OK) == 0) return "";
  return std::strerror(errno);
}

bool IsMemoryOrUri(const std::string& path) {
  return path.empty() || path == ":memory:" || path.starts_with("file:");
}

}  // namespace

DatabaseFileProbe ProbeDatabaseFile(const std::string& path) {
  DatabaseFileProbe probe;
  {
    std::ifstream in(path, std::ios::binary);
    char header[20] = {};
    if (in.read(header, sizeof(header))) probe.wal_mode = header[18] == 2 && header[19] == 2;
  }
  probe.dir_error = WriteError(DirectoryOf(path));
  probe.dir_writable = probe.dir_error.empty();
  std::error_code error;
  const std::uintmax_t wal = fs::file_size(path + "-wal", error);
  probe.wal_exists = !error;
  probe.wal_bytes = error ? 0 : static_cast<std::int64_t>(wal);
  probe.shm_exists = fs::exists(path + "-shm", error);
  return probe;
}

ReadOpenMode DecideReadOpen(const std::string& path,
                            const DatabaseFileProbe& probe,
                            std::string* message) {
  message->clear();
  if (!probe.wal_mode || probe.dir_writable) return ReadOpenMode::kReadOnly;
  if (probe.wal_exists && probe.shm_exists) return ReadOpenMode::kReadOnly;
  if (probe.wal_bytes == 0) return ReadOpenMode::kImmutable;
  *message = "cannot read database '" + path + "' correctly: '" + path + "-wal' holds " +
             std::to_string(probe.wal_bytes) +
             " bytes of committed changes not yet copied into the file (a writer is running "
             "or stopped without a checkpoint), and SQLite cannot create '" +
             path + "-shm' to read them because directory '" + DirectoryOf(path) +
             "' is not writable (" + probe.dir_error +
             "). Reading the file alone (immutable) would silently miss those changes. Copy '" +
             path + "' and '" + path +
             "-wal' to a writable directory and query the copy, or open the database once "
             "where it is writable (e.g. `sqlite3 " +
             path + " 'PRAGMA wal_checkpoint'`) to fold the WAL into the file";
  return ReadOpenMode::kRefused;
}

Status CheckWritable(const std::string& path) {
  if (IsMemoryOrUri(path)) return Status::Ok();
  const std::string dir = DirectoryOf(path);
  std::error_code error;
  if (!fs::exists(path, error)) {
    const std::string why = WriteError(dir);
    if (why.empty()) return Status::Ok();
    return FailedPrecondition("cannot create database '" + path + "': directory '" + dir +
                              "' is not writable (" + why + ")");
  }
  if (const std::string why = WriteError(path); !why.empty()) {
    return FailedPrecondition("database '" + path + "' cannot be written (" + why +
                              "): a read-only file system or the file's permissions; nothing "
                              "was written");
  }
  // SQLite creates "-wal" and "-shm" next to the file (and deletes the -wal on close); where
  // both exist and can be written it manages without the directory.
  const bool companions = fs::exists(path + "-wal", error) && fs::exists(path + "-shm", error) &&
                          WriteError(path + "-wal").empty() && WriteError(path + "-shm").empty();
  if (companions) return Status::Ok();
  if (const std::string why = WriteError(dir); !why.empty()) {
    return FailedPrecondition("database '" + path + "' cannot be written: its directory '" + dir +
                              "' is not writable (" + why + "), and SQLite must create '" + path +
                              "-wal' and '" + path + "-shm' there; nothing was written");
  }
  return Status::Ok();
}

std::string ImmutableUri(const std::string& path) {
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  const std::string text = (error ? fs::path(path) : absolute.lexically_normal()).string();
  std::string uri = "file:";
  for (const char c : text) {
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char kHex[] = "0123456789ABCDEF";
      const auto byte = static_cast<unsigned char>(c);
      uri += '%';
      uri += kHex[byte >> 4];
      uri += kHex[byte & 0xf];
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace dede::internal
