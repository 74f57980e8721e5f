// The schema migrations embedded at build time (schemas/sqlite/NNNN_name.sql, generated into
// embedded_migrations.cpp by framework/src/store/CMakeLists.txt).
#pragma once

#include <span>

namespace dede::internal {

struct Migration {
  int version;       // the file's number: the user_version the database has after applying it
  const char* name;  // "0001_initial.sql"
  const char* sql;   // the file's full text
};

// Ordered by version; Migrations()[i].version == i + 1.
std::span<const Migration> Migrations();

}  // namespace dede::internal
