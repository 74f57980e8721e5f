// A small RAII layer over the SQLite C API, private to the store: Database (a connection with a
// statement cache), Statement (one use of a prepared statement) and Transaction. Nothing
// throws; failures come back as a Status whose message names the database file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "dede/status.h"

namespace dede::internal::sqlite {

class Database;

// One use of a prepared statement: bind, step, read columns. A statement borrowed from the
// cache is reset and its bindings are cleared when the handle is destroyed, so the next user
// starts clean and no read lock outlives the handle; an uncached one is finalized.
class Statement {
 public:
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based (`?1`). A failed bind is remembered and reported by the next Step.
  // A NaN double binds NULL (SQLite stores NaN as NULL anyway). Binding after a Step rewinds
  // the statement first (SQLite refuses binds to a stepped statement); other bindings stay.
  Statement& Bind(int index, std::int64_t value);
  Statement& Bind(int index, int value) { return Bind(index, static_cast<std::int64_t>(value)); }
  Statement& Bind(int index, double value);
  Statement& Bind(int index, std::string_view value);      // copied by SQLite (SQLITE_TRANSIENT)
  Statement& BindBlob(int index, std::string_view bytes);  // copied, stored as a BLOB
  Statement& BindNull(int index);

  // Advances the statement: *has_row is true with a row to read, false when done.
  Status Step(bool* has_row);
  // Steps a statement that returns no rows to completion.
  Status Run();
  // Rewinds for another execution; bindings are kept.
  void Reset();

  int ColumnCount() const;
  const char* ColumnName(int column) const;
  int ColumnType(
      int column) const;  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL
  bool IsNull(int column) const { return ColumnType(column) == SQLITE_NULL; }
  std::int64_t ColumnInt64(int column) const;
  double ColumnDouble(int column) const;
  std::string ColumnText(int column) const;  // "" for NULL
  std::string_view ColumnBlob(int column) const;

  // The extended result code of the last failed Step (SQLITE_OK if none): lets callers turn a
  // constraint failure into a message about their own data.
  int last_error() const { return last_error_; }
  const char* sql() const;
  bool empty() const { return stmt_ == nullptr; }
  // True if running it writes nothing to the database file (sqlite3_stmt_readonly); VACUUM,
  // including VACUUM INTO, is not.
  bool ReadOnly() const { return stmt_ == nullptr || sqlite3_stmt_readonly(stmt_) != 0; }

 private:
  friend class Database;
  Statement(Database* db, sqlite3_stmt* stmt, bool* in_use);
  void NoteBind(int rc, int index);

  Database* db_;
  sqlite3_stmt* stmt_;
  bool* in_use_;          // the cache slot's flag; nullptr for an uncached (owned) statement
  bool stepped_ = false;  // stepped since the last reset
  int bind_error_ = SQLITE_OK;
  int bind_error_index_ = 0;
  int last_error_ = SQLITE_OK;
};

class Database {
 public:
  // `flags` are sqlite3_open_v2 flags. Extended result codes are turned on, and the
  // two-argument fts3_tokenizer() (it takes a function pointer from SQL) is turned off. `uri`:
  // open this SQLite URI ("file:...?immutable=1", with SQLITE_OPEN_URI) instead of `path`,
  // which messages still name.
  static Result<std::unique_ptr<Database>> Open(const std::string& path,
                                                int flags,
                                                const std::string& uri = "");
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs SQL without parameters (one or more statements), e.g. a migration file.
  Status Exec(const std::string& sql, std::string_view doing);
  // The cached prepared statement for `sql` (prepared on first use, kept until close).
  // A statement is used by one handle at a time; using it twice at once is a bug.
  Result<Statement> Prepare(const std::string& sql);
  // Prepares the first statement of `*sql` and advances `*sql` past it. The handle owns the
  // statement (not cached). The handle is empty() if only whitespace or comments remained.
  Result<Statement> PrepareNext(const char** sql);

  // A Status for a failed call that returned `code`: "<doing> in '<path>': <SQLite message>".
  Status Error(int code, std::string_view doing) const;
  // " (No space left on device; ...)" after an I/O or disk-full failure, else "".
  std::string IoDetail(int code) const;
  const std::string& path() const { return path_; }
  sqlite3* handle() { return db_; }
  // Statements prepared from now on may not ATTACH another database file nor call
  // fts3_tokenizer() (an authorizer); a refused statement's error says which and why.
  void RestrictQueries();
  // Calls `stop` every few thousand virtual machine steps of a running statement; when it
  // returns true the statement ends with SQLITE_INTERRUPT. An empty function removes it.
  void SetProgressCheck(std::function<bool()> stop);
  bool in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }
  std::int64_t LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
  // Rows changed by the last INSERT, UPDATE or DELETE.
  int Changes() const { return sqlite3_changes(db_); }

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  struct CacheSlot {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };

  sqlite3* db_;
  std::string path_;
  std::function<bool()> progress_stop_;
  std::string denied_;  // why the authorizer last refused a statement
  std::unordered_map<std::string, std::unique_ptr<CacheSlot>> cache_;
};

// Maps a SQLite result code to a StatusCode: busy/locked -> kUnavailable, not a database or
// corrupt -> kInvalidArgument, read-only -> kFailedPrecondition, SQL error -> kInvalidArgument,
// interrupted -> kCancelled, anything else -> kInternal.
StatusCode CodeFor(int sqlite_code);

// BEGIN (DEFERRED | IMMEDIATE) in the constructor; ROLLBACK in the destructor unless Commit()
// succeeded. Check status() after construction: the BEGIN itself can fail (busy, I/O).
//   Transaction tx(db, Transaction::kImmediate);
//   if (!tx.status().ok()) return tx.status();
//   ... return tx.Commit();
class Transaction {
 public:
  enum Mode { kDeferred, kImmediate };
  Transaction(Database& db, Mode mode);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  const Status& status() const { return status_; }
  Status Commit();

 private:
  Database& db_;
  Status status_;
  bool active_ = false;
};

}  // namespace dede::internal::sqlite
