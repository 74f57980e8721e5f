// `dede query DB "SQL"`: runs SQL against a deployment database opened read-only and prints
// the result.
#pragma once

#include <ostream>
#include <string>

#include "dede/status.h"
#include "store/store.h"

namespace dede::tools {

// Opens `db_path` read-only (never migrating it), runs `sql` (several statements allowed; the
// last one that returns columns is printed) and writes the result to `out` as
//   "table": aligned columns, numbers right-aligned, NULL shown as NULL, "(N rows)" at the end;
//            newlines and tabs inside a value are shown as \n and \t;
//   "csv":   RFC 4180: a header line, CRLF line ends, fields quoted when they contain a comma,
//            a quote, CR or LF (quotes doubled); NULL is an empty field;
//   "json":  an array of objects, one per row, keys in column order (a repeated column name
//            gets a suffix: "round", "round_2"); integers and reals are JSON numbers, NULL is
//            null, non-finite reals are the strings "inf", "-inf" and "nan".
// Nothing is written to `out` on failure. Errors: unknown format (kInvalidArgument), a missing
// or non-database file, a schema newer than this binary, SQL errors, writes (the connection
// is read-only); a failed query on a database with an older schema says so. `limits`: the
// query's time limit and cancel flag (kCancelled when either stops it) and its memory limit
// (kFailedPrecondition). The connection refuses ATTACH and fts3_tokenizer(). A WAL database
// whose directory cannot be written (read-only media) is opened immutable when its file is
// the whole database, and refused with the reason when a -wal holds changes it would miss
// (store/file_access.h).
Status RunQuery(const std::string& db_path,
                const std::string& sql,
                const std::string& format,
                std::ostream& out,
                const internal::Store::QueryLimits& limits = {});

}  // namespace dede::tools
