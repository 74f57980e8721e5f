// Issue 49: `dede query` on hostile or read-only databases. fts3_tokenizer() refused in both
// forms (FTS queries still work), the heap and result limits, and how a file on read-only
// media is opened (the decision from the probe; a chmod'ed directory when not root).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "query.h"
#include "store/file_access.h"
#include "store/sqlite.h"
#include "store/store.h"

namespace dede::internal {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "dede_query_guard_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    fs::permissions(path_, fs::perms::owner_all, ignored);
    fs::remove_all(path_, ignored);
  }
  std::string File(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void RawExec(const std::string& path, const std::string& sql) {
  auto db = sqlite::Database::Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const Status status = db.value()->Exec(sql, "test fixture");
  ASSERT_TRUE(status.ok()) << status.ToString();
}

// A database holding an FTS3 table, as in the issue.
std::string Fts3Database(const TempDir& dir) {
  const std::string path = dir.File("f.db");
  RawExec(path,
          "CREATE VIRTUAL TABLE docs USING fts3(body);"
          "INSERT INTO docs VALUES ('hello world'), ('goodbye');"
          "CREATE VIEW leak AS SELECT hex(fts3_tokenizer('simple')) AS address;");
  return path;
}

Status Query(const std::string& path,
             const std::string& sql,
             std::string* out,
             Store::QueryLimits limits = {}) {
  std::ostringstream text;
  Status status = tools::RunQuery(path, sql, "csv", text, limits);
  *out = text.str();
  return status;
}

TEST(QueryGuard, Fts3TokenizerIsRefusedInBothFormsAndFtsQueriesStillWork) {
  TempDir dir;
  const std::string path = Fts3Database(dir);
  std::string out;
  // The crash: the two-argument form installs a tokenizer at 0x4141414141414141, which
  // the MATCH then calls.
  Status status = Query(path,
                        "SELECT fts3_tokenizer('simple', x'4141414141414141'); "
                        "SELECT body FROM docs WHERE docs MATCH 'hello'",
                        &out);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("fts3_tokenizer() is not allowed in queries"), std::string::npos)
      << status.message();
  EXPECT_TRUE(out.empty());
  // The one-argument form leaks a library address: refused too.
  for (const char* sql :
       {"SELECT hex(fts3_tokenizer('simple'))", "SELECT FTS3_TOKENIZER('porter')"}) {
    status = Query(path, sql, &out);
    ASSERT_FALSE(status.ok()) << sql;
    EXPECT_NE(status.message().find("fts3_tokenizer() is not allowed"), std::string::npos)
        << sql << ": " << status.message();
    EXPECT_TRUE(out.empty()) << sql;
  }
  // Inside a view of the file (SQLite itself refuses it there: "unsafe use").
  status = Query(path, "SELECT * FROM leak", &out);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("fts3_tokenizer()"), std::string::npos) << status.message();
  EXPECT_TRUE(out.empty());
  // Full-text search itself is untouched.
  status = Query(path, "SELECT body FROM docs WHERE docs MATCH 'hello'", &out);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(out, "body\r\nhello world\r\n");
  // ATTACH stays refused, now with the reason.
  status = Query(path, "ATTACH '" + dir.File("other.db") + "' AS other", &out);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("ATTACH is not allowed"), std::string::npos) << status.message();
  EXPECT_FALSE(fs::exists(dir.File("other.db")));
}

TEST(QueryGuard, EveryConnectionHasTheTwoArgumentTokenizerTurnedOff) {
  TempDir dir;
  const std::string path = Fts3Database(dir);
  // A read-write connection (the runner's, dede submit's) has no authorizer, but the
  // two-argument form is off: it fails instead of installing the pointer.
  auto db = sqlite::Database::Open(path, SQLITE_OPEN_READWRITE);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const Status status =
      db.value()->Exec("SELECT fts3_tokenizer('simple', x'4141414141414141')", "installing");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("fts3tokenize disabled"), std::string::npos) << status.message();
  EXPECT_TRUE(db.value()->Exec("SELECT * FROM docs WHERE docs MATCH 'hello'", "search").ok());
}

TEST(QueryGuard, HeapLimitStopsAHugeAllocationWithAClearMessage) {
  TempDir dir;
  const std::string path = Fts3Database(dir);
  Store::QueryLimits limits;
  limits.max_memory_bytes = std::int64_t{64} << 20;
  std::string out;
  // The randomblob(1e9) reached 988 MB; with the limit SQLite's allocation fails.
  Status status = Query(path, "SELECT length(randomblob(1e9))", &out, limits);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("needs more than the memory limit of 64 MiB (--max-memory-mib"),
            std::string::npos)
      << status.message();
  EXPECT_TRUE(out.empty());
  // The process-wide limit is put back afterwards (0: none).
  EXPECT_EQ(sqlite3_hard_heap_limit64(-1), 0);
  // A result that grows past the limit row by row is stopped too.
  status = Query(path,
                 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100) "
                 "SELECT randomblob(1e6) FROM c",
                 &out,
                 limits);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("its result is larger than the memory limit of 64 MiB"),
            std::string::npos)
      << status.message();
  // Within the limit, the same kind of query runs.
  status = Query(path, "SELECT length(randomblob(1e6)) AS n", &out, limits);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(out, "n\r\n1000000\r\n");
}

DatabaseFileProbe Probe(
    bool wal_mode, bool dir_writable, bool wal_exists, std::int64_t wal_bytes, bool shm_exists) {
  DatabaseFileProbe probe;
  probe.wal_mode = wal_mode;
  probe.dir_writable = dir_writable;
  probe.dir_error = dir_writable ? "" : "Read-only file system";
  probe.wal_exists = wal_exists;
  probe.wal_bytes = wal_bytes;
  probe.shm_exists = shm_exists;
  return probe;
}

TEST(ReadOnlyMedia, DecidesHowToOpenFromTheProbe) {
  std::string message;
  auto decide = [&](const DatabaseFileProbe& probe) {
    return DecideReadOpen("d/f.db", probe, &message);
  };
  // A writable directory: the ordinary read-only open (SQLite makes the -shm it needs).
  EXPECT_EQ(decide(Probe(true, true, true, 4096, false)), ReadOpenMode::kReadOnly);
  // A rollback-journal database needs no -shm.
  EXPECT_EQ(decide(Probe(false, false, false, 0, false)), ReadOpenMode::kReadOnly);
  // Read-only media with the -wal and -shm a writer keeps: SQLite reads them as they are.
  EXPECT_EQ(decide(Probe(true, false, true, 4096, true)), ReadOpenMode::kReadOnly);
  // No WAL content: the file is the whole database; immutable needs no -shm.
  EXPECT_EQ(decide(Probe(true, false, false, 0, false)), ReadOpenMode::kImmutable);
  EXPECT_EQ(decide(Probe(true, false, true, 0, false)), ReadOpenMode::kImmutable);
  EXPECT_EQ(decide(Probe(true, false, false, 0, true)), ReadOpenMode::kImmutable);
  EXPECT_TRUE(message.empty());
  // Committed changes in the -wal that immutable would miss and no -shm can be made: refused,
  // saying why and what to do.
  EXPECT_EQ(decide(Probe(true, false, true, 4152, false)), ReadOpenMode::kRefused);
  for (const char* part : {"'d/f.db-wal' holds 4152 bytes",
                           "directory 'd' is not writable",
                           "Read-only file system",
                           "silently miss",
                           "Copy 'd/f.db'"}) {
    EXPECT_NE(message.find(part), std::string::npos) << part << " in: " << message;
  }
}

TEST(ReadOnlyMedia, ProbeSeesWalModeAndTheCompanionFiles) {
  TempDir dir;
  const std::string path = dir.File("deploy.db");
  { ASSERT_TRUE(Store::Open(path).ok()); }
  DatabaseFileProbe probe = ProbeDatabaseFile(path);
  EXPECT_TRUE(probe.wal_mode);
  EXPECT_FALSE(probe.wal_exists);  // a clean close folds the WAL into the file
  auto writer = Store::Open(path);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer.value()->UpsertDeployment({"alpha", "toy", "1", "a.yaml", "x: 1"}).ok());
  probe = ProbeDatabaseFile(path);
  EXPECT_TRUE(probe.wal_exists);
  EXPECT_GT(probe.wal_bytes, 0);
  EXPECT_TRUE(probe.shm_exists);
  EXPECT_EQ(probe.dir_writable, access(dir.path().c_str(), W_OK) == 0);
  EXPECT_FALSE(ProbeDatabaseFile(dir.File("missing.db")).wal_mode);
}

TEST(ReadOnlyMedia, ImmutableOpenReadsTheFileAloneEvenWithUriCharactersInItsName) {
  TempDir dir;
  const std::string path = dir.File("odd name?x=1#%41.db");
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE(store.value()->UpsertDeployment({"alpha", "toy", "1", "a.yaml", "x: 1"}).ok());
  }
  auto store = Store::Open(path, /*read_only=*/true, /*immutable=*/true);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto result = store.value()->Query("SELECT name FROM deployments");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->rows.size(), 1u);
  EXPECT_EQ(result->rows[0][0].value_or(""), "alpha");
  EXPECT_FALSE(fs::exists(path + "-shm"));
  EXPECT_FALSE(store.value()->Query("DELETE FROM deployments").ok());
  EXPECT_NE(ImmutableUri("a%b?c#d.db").find("a%25b%3Fc%23d.db?immutable=1"), std::string::npos);
}

// chmod does not stop root; Integration.ReadOnlyMediaQueryAndSubmit uses a read-only bind
// mount there instead.
bool RunningAsRoot() { return geteuid() == 0; }

TEST(ReadOnlyMedia, QueryInAReadOnlyDirectoryAndSubmitSaysWhyItCannotWrite) {
  if (RunningAsRoot()) {
    GTEST_SKIP() << "running as root: chmod does not stop root's writes (the integration test "
                    "covers read-only media with a read-only bind mount)";
  }
  TempDir dir;
  const fs::path ro = dir.path() / "ro";
  fs::create_directories(ro);
  const std::string path = (ro / "deploy.db").string();
  {
    auto store = Store::Open(path);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE(store.value()->UpsertDeployment({"alpha", "toy", "1", "a.yaml", "x: 1"}).ok());
  }
  ASSERT_EQ(chmod(ro.c_str(), 0555), 0);
  std::string out;
  const Status status = Query(path, "SELECT name FROM deployments", &out);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(out, "name\r\nalpha\r\n");
  EXPECT_FALSE(fs::exists(path + "-shm"));
  const Status writable = CheckWritable(path);
  ASSERT_FALSE(writable.ok());
  EXPECT_NE(writable.message().find("its directory '" + ro.string() + "' is not writable"),
            std::string::npos)
      << writable.message();
  auto opened = Store::Open(path);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().message(), writable.message());
  ASSERT_EQ(chmod(path.c_str(), 0444), 0);
  EXPECT_NE(CheckWritable(path).message().find("cannot be written (Permission denied)"),
            std::string::npos);
  EXPECT_NE(CheckWritable((ro / "new.db").string()).message().find("cannot create database"),
            std::string::npos);
}

}  // namespace
}  // namespace dede::internal
