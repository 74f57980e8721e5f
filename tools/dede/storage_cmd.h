// `dede storage DB`: where a deployment database's bytes are, per table and index (SQLite's
// dbstat), per round, and how much of the file is free; `--vacuum` switches an older database
// to incremental auto-vacuum (storage.retention then shrinks the file).
#pragma once

#include <ostream>
#include <string>

#include "dede/status.h"

namespace CLI {
class App;
}

namespace dede::tools {

struct StorageRequest {
  std::string db_path;
  std::string format = "table";  // table | json
  bool vacuum = false;
};

// Adds the `storage` subcommand to `app`, filling *request when it is parsed.
CLI::App* AddStorageCommand(CLI::App* app, StorageRequest* request);

// The report (read-only open; nothing is written):
//   the file, its WAL, page size and count, free pages, auto_vacuum, schema version;
//   per table and index (indexes under their table): pages, bytes, share of the file, rows
//   (entries for an index), the rounds holding rows and bytes per such round;
//   per deployment: rounds, the oldest round with full records;
//   bytes per round kept for every round (rounds, metrics) and of a round's full records
//   (allocations, entities, entity_parameters, domain_records, while it is in the window).
// With `vacuum`: takes the deployment's writer lock (refused while `dede run` holds it), opens
// the database read-write (an older schema is migrated, as `dede run` would), turns auto_vacuum
// incremental with a full VACUUM and prints the file size before and after.
Status Storage(const StorageRequest& request, std::ostream& out);

}  // namespace dede::tools
