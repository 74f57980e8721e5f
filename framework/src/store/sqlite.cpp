#include "store/sqlite.h"

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/check.h"

namespace dede::internal::sqlite {

StatusCode CodeFor(int sqlite_code) {
  switch (sqlite_code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return StatusCode::kUnavailable;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_ERROR:  // SQL text errors: syntax, no such table, ...
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
      return StatusCode::kInvalidArgument;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
    case SQLITE_CONSTRAINT:
      return StatusCode::kFailedPrecondition;
    case SQLITE_CANTOPEN:
      return StatusCode::kNotFound;
    case SQLITE_INTERRUPT:
      return StatusCode::kCancelled;
    default:
      return StatusCode::kInternal;
  }
}

// ---- Statement ----------------------------------------------------------------------------

Statement::Statement(Database* db, sqlite3_stmt* stmt, bool* in_use)
    : db_(db), stmt_(stmt), in_use_(in_use) {
  if (in_use_ != nullptr) {
    // Two live handles on one cached statement would interleave their bindings and steps.
    DEDE_CHECK_MSG(!*in_use_, sqlite3_sql(stmt_));
    *in_use_ = true;
  }
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_),
      stmt_(std::exchange(other.stmt_, nullptr)),
      in_use_(std::exchange(other.in_use_, nullptr)),
      stepped_(other.stepped_),
      bind_error_(other.bind_error_),
      bind_error_index_(other.bind_error_index_),
      last_error_(other.last_error_) {}

Statement::~Statement() {
  if (stmt_ == nullptr) return;
  if (in_use_ == nullptr) {
    sqlite3_finalize(stmt_);
    return;
  }
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  *in_use_ = false;
}

void Statement::NoteBind(int rc, int index) {
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) {
    bind_error_ = rc;
    bind_error_index_ = index;
  }
}

Statement& Statement::Bind(int index, std::int64_t value) {
  if (stepped_) Reset();
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  NoteBind(rc, index);
  return *this;
}

Statement& Statement::Bind(int index, double value) {
  if (stepped_) Reset();
  const int rc = std::isnan(value) ? sqlite3_bind_null(stmt_, index)
                                   : sqlite3_bind_double(stmt_, index, value);
  NoteBind(rc, index);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view value) {
  if (stepped_) Reset();
  const int rc =
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  NoteBind(rc, index);
  return *this;
}

Statement& Statement::BindBlob(int index, std::string_view bytes) {
  if (stepped_) Reset();
  // A zero-length blob still needs a non-null pointer, or SQLite binds NULL.
  static const char kEmpty = 0;
  const int rc = sqlite3_bind_blob64(
      stmt_, index, bytes.empty() ? &kEmpty : bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  NoteBind(rc, index);
  return *this;
}

Statement& Statement::BindNull(int index) {
  if (stepped_) Reset();
  const int rc = sqlite3_bind_null(stmt_, index);
  NoteBind(rc, index);
  return *this;
}

Status Statement::Step(bool* has_row) {
  *has_row = false;
  if (bind_error_ != SQLITE_OK) {
    last_error_ = bind_error_;
    return db_->Error(bind_error_,
                      "binding parameter ?" + std::to_string(bind_error_index_) + " of `" +
                          sqlite3_sql(stmt_) + "`");
  }
  stepped_ = true;
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    *has_row = true;
    return Status::Ok();
  }
  if (rc == SQLITE_DONE) return Status::Ok();
  last_error_ = rc;
  return db_->Error(rc, std::string("running `") + sqlite3_sql(stmt_) + "`");
}

Status Statement::Run() {
  bool has_row = true;
  while (has_row) {
    Status status = Step(&has_row);
    if (!status.ok()) return status;
  }
  return Status::Ok();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  stepped_ = false;
  last_error_ = SQLITE_OK;
}

int Statement::ColumnCount() const { return sqlite3_column_count(stmt_); }
const char* Statement::ColumnName(int column) const { return sqlite3_column_name(stmt_, column); }
int Statement::ColumnType(int column) const { return sqlite3_column_type(stmt_, column); }
std::int64_t Statement::ColumnInt64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}
double Statement::ColumnDouble(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::ColumnText(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return {};
  // The byte count is taken after the text conversion, as the SQLite documentation requires.
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::string_view Statement::ColumnBlob(int column) const {
  const void* blob = sqlite3_column_blob(stmt_, column);
  if (blob == nullptr) return {};
  return {static_cast<const char*>(blob),
          static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
}

const char* Statement::sql() const { return stmt_ == nullptr ? "" : sqlite3_sql(stmt_); }

// ---- Database -----------------------------------------------------------------------------

Result<std::unique_ptr<Database>> Database::Open(const std::string& path,
                                                 int flags,
                                                 const std::string& uri) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(uri.empty() ? path.c_str() : uri.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    // Even a failed open may allocate a handle, which carries the message.
    std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return Status(CodeFor(rc), "cannot open database '" + path + "': " + message);
  }
  sqlite3_extended_result_codes(db, 1);
  // Debian builds SQLite with SQLITE_ENABLE_FTS3_TOKENIZER: fts3_tokenizer(name, ptr) would
  // install a tokenizer at any address SQL names (a crash or code execution). No dede
  // connection needs it.
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, nullptr);
  return std::unique_ptr<Database>(new Database(db, path));
}

Database::~Database() {
  for (auto& [sql, slot] : cache_) {
    DEDE_CHECK_MSG(!slot->in_use, sql.c_str());
    sqlite3_finalize(slot->stmt);
  }
  // Every statement is finalized, so close cannot fail with SQLITE_BUSY.
  sqlite3_close(db_);
}

Status Database::Exec(const std::string& sql, std::string_view doing) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string message = error != nullptr ? error : sqlite3_errstr(rc);
  sqlite3_free(error);
  return Status(CodeFor(rc), std::string(doing) + " in '" + path_ + "': " + message + IoDetail(rc));
}

Result<Statement> Database::Prepare(const std::string& sql) {
  auto [it, inserted] = cache_.try_emplace(sql);
  if (inserted) {
    auto slot = std::make_unique<CacheSlot>();
    const int rc = sqlite3_prepare_v3(db_,
                                      sql.c_str(),
                                      static_cast<int>(sql.size()) + 1,
                                      SQLITE_PREPARE_PERSISTENT,
                                      &slot->stmt,
                                      nullptr);
    if (rc != SQLITE_OK) {
      Status status = Error(rc, "preparing `" + sql + "`");
      sqlite3_finalize(slot->stmt);
      cache_.erase(it);
      return status;
    }
    it->second = std::move(slot);
  }
  return Statement(this, it->second->stmt, &it->second->in_use);
}

Result<Statement> Database::PrepareNext(const char** sql) {
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(db_, *sql, -1, &stmt, &tail);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Error(rc, "preparing the query");
  }
  *sql = tail;
  return Statement(this, stmt, nullptr);
}

// What an I/O failure was: a full disk and a file-size limit (EFBIG once SIGXFSZ is ignored)
// are the operator's to fix; the failed transaction was rolled back.
std::string Database::IoDetail(int code) const {
  const int primary = code & 0xff;
  if (primary != SQLITE_IOERR && primary != SQLITE_FULL) return "";
  const int error = sqlite3_system_errno(db_);
  std::string detail;
  if (error != 0) detail = std::strerror(error);
  // A short write (the disk filled up, or the file reached the size limit half-way through)
  // carries no errno: say what the limits are.
  if (error == 0 || error == EFBIG) {
    struct rlimit limit {};
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      detail += std::string(detail.empty() ? "" : "; ") + "the file-size limit (ulimit -f) is " +
                std::to_string(static_cast<unsigned long long>(limit.rlim_cur)) + " bytes";
    }
  }
  if (error == 0 || error == ENOSPC || error == EDQUOT) {
    const std::string dir = std::filesystem::path(path_).parent_path().string();
    struct statvfs fs {};
    if (statvfs(dir.empty() ? "." : dir.c_str(), &fs) == 0) {
      const unsigned long long free_bytes = static_cast<unsigned long long>(fs.f_bavail) *
                                            static_cast<unsigned long long>(fs.f_frsize);
      if (free_bytes < (64ull << 20)) {
        detail += std::string(detail.empty() ? "" : "; ") + std::to_string(free_bytes) +
                  " bytes free on the disk";
      }
    }
  }
  if (detail.empty()) return "";
  return " (" + detail + "; the failed transaction was rolled back)";
}

Status Database::Error(int code, std::string_view doing) const {
  // sqlite3_errmsg describes the most recent failure on this connection, which is the one
  // that returned `code` as long as the caller asks right away.
  std::string message = sqlite3_errmsg(db_);
  if (message.empty() || message == "not an error") message = sqlite3_errstr(code);
  // The authorizer's refusals read "not authorized[ to use function: f]": add its reason.
  if (!denied_.empty() && message.starts_with("not authorized")) message += ". " + denied_;
  return Status(CodeFor(code),
                std::string(doing) + " in '" + path_ + "': " + message + IoDetail(code));
}

// ---- Transaction --------------------------------------------------------------------------

Transaction::Transaction(Database& db, Mode mode) : db_(db) {
  status_ =
      db_.Exec(mode == kImmediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED", "starting a transaction");
  active_ = status_.ok();
}

Transaction::~Transaction() {
  // SQLite rolls back by itself after some errors (I/O, out of memory, some busy cases);
  // ROLLBACK would then fail with "no transaction is active".
  if (active_ && db_.in_transaction()) {
    // The rollback's own failure leaves nothing to do: the connection closes or retries later,
    // and SQLite rolls back an unfinished transaction on close and on the next open.
    (void)db_.Exec("ROLLBACK", "rolling back");
  }
}

Status Transaction::Commit() {
  if (!active_) return status_.ok() ? Internal("Commit() called twice") : status_;
  Status status = db_.Exec("COMMIT", "committing");
  // On failure (e.g. busy) the transaction is still open and the destructor rolls it back.
  if (status.ok()) active_ = false;
  return status;
}

void Database::RestrictQueries() {
  sqlite3_set_authorizer(
      db_,
      [](void* self, int action, const char*, const char* name, const char*, const char*) {
        std::string& denied = static_cast<Database*>(self)->denied_;
        if (action == SQLITE_ATTACH) {
          denied = "ATTACH is not allowed (queries read this database only)";
          return SQLITE_DENY;
        }
        // fts3_tokenizer(name) returns a tokenizer's address (a leak that defeats ASLR);
        // fts3_tokenizer(name, blob) installs one at any address (turned off per connection,
        // refused here as well, e.g. inside a view).
        if (action == SQLITE_FUNCTION && name != nullptr &&
            sqlite3_stricmp(name, "fts3_tokenizer") == 0) {
          denied =
              "fts3_tokenizer() is not allowed in queries (it reads or replaces an FTS "
              "tokenizer's function pointers); FTS tables and MATCH work without it";
          return SQLITE_DENY;
        }
        return SQLITE_OK;
      },
      this);
}

void Database::SetProgressCheck(std::function<bool()> stop) {
  progress_stop_ = std::move(stop);
  if (!progress_stop_) {
    sqlite3_progress_handler(db_, 0, nullptr, nullptr);
    return;
  }
  sqlite3_progress_handler(
      db_,
      4096,
      [](void* self) { return static_cast<Database*>(self)->progress_stop_() ? 1 : 0; },
      this);
}

}  // namespace dede::internal::sqlite
