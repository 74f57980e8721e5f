// `dede submit DB KIND TARGET --json '{...}'` and `dede submit DB --file events.json|.csv`:
// writes events into a deployment database's inbox (table `events`), for the running (or next)
// `dede run` to apply at the start of its next round.
#pragma once

#include <cmath>
#include <ostream>
#include <string>

#include "dede/status.h"

namespace dede::tools {

struct SubmitRequest {
  std::string db_path;
  std::string deployment;  // empty: the database's only deployment
  std::string kind, target, json = "{}";
  std::string file;  // instead of kind/target/json: a .json array or a .csv file
  int apply_from_round = 0;
  double apply_after = std::nan("");  // Unix seconds
  std::string writer;
};

// Inserts the event(s) in one transaction and prints "event N" per event. File formats:
//   .json: an array of objects {kind, target, payload (object), apply_from_round,
//          apply_after, deployment, writer}; kind required, the rest optional;
//   .csv:  a header naming kind and optionally target, payload (a JSON object, quoted as CSV
//          quotes), apply_from_round, apply_after, deployment, writer.
// Options of the command fill what a file row leaves out. Errors name the file and row.
Status Submit(const SubmitRequest& request, std::ostream& out);

}  // namespace dede::tools
