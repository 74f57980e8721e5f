// Database files on media dede may not write: how `dede query` opens them, and why a writer
// (`dede run`, `dede submit`) cannot. Private to the store and the dede tool.
#pragma once

#include <cstdint>
#include <string>

#include "dede/status.h"

namespace dede::internal {

// What the file system says about a database file and its companions.
struct DatabaseFileProbe {
  bool wal_mode = false;       // the header says WAL (bytes 18 and 19 are 2)
  bool dir_writable = true;    // files can be created next to it (-shm, -wal)
  std::string dir_error;       // why not (strerror of access(dir, W_OK))
  bool wal_exists = false;     // "<path>-wal"
  std::int64_t wal_bytes = 0;  // its size: committed transactions not yet copied into the file
  bool shm_exists = false;     // "<path>-shm", the WAL index a running writer keeps
};
DatabaseFileProbe ProbeDatabaseFile(const std::string& path);

enum class ReadOpenMode {
  kReadOnly,   // SQLITE_OPEN_READONLY: sees the WAL, needs the -shm (existing or creatable)
  kImmutable,  // URI immutable=1: the main file alone, no locks, no -shm, the -wal ignored
  kRefused,    // neither would read the database correctly: *message says why
};
// How a read-only connection must open the file described by `probe`:
//   not WAL mode, or the directory is writable          -> kReadOnly (SQLite creates the -shm);
//   the -wal and the -shm both exist (a writer may run) -> kReadOnly (SQLite reads them as they
//                                                          are, without writing);
//   no -wal, or an empty one, and no -shm can be made   -> kImmutable (the file is the whole
//                                                          database: nothing is missed);
//   a non-empty -wal without a -shm that can be made    -> kRefused: immutable would silently
//                                                          miss the WAL's committed rounds.
ReadOpenMode DecideReadOpen(const std::string& path,
                            const DatabaseFileProbe& probe,
                            std::string* message);

// OK if a writer can use the database file `path` (":memory:" always; a file that does not
// exist yet if its directory is writable). Otherwise kFailedPrecondition naming the file or
// directory and why (read-only file system, permissions): the error a read-write open of a
// file on read-only media would otherwise give as "unable to open database file".
Status CheckWritable(const std::string& path);

// "file:/abs/path?immutable=1" (URI-escaped) for sqlite3_open_v2 with SQLITE_OPEN_URI.
std::string ImmutableUri(const std::string& path);

}  // namespace dede::internal
