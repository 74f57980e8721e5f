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
  double apply_after = std::nan("");  // Unix seconds; used if apply_after_given (finite only)
  bool apply_after_given = false;     // --after was given
  std::string writer;
  std::string id;  // --id: the idempotency key (one event; file rows carry their own "id")
  // --allow-unknown-deployment: accept a deployment name the database does not hold (yet).
  bool allow_unknown_deployment = false;
};

// Inserts the event(s) in one transaction and prints "event N" per event. File formats:
//   .json: an array of objects {kind, target, payload (object), apply_from_round,
//          apply_after, deployment, writer, id}; kind required, the rest optional;
//   .csv:  a header naming kind and optionally target, payload (a JSON object, quoted as CSV
//          quotes), apply_from_round, apply_after, deployment, writer, id.
// Options of the command fill what a file row leaves out. Errors name the file and row.
// Exactly once: an event with an idempotency key (--id, a row's id) that the deployment
// already holds with the same content is not inserted again; its line says so and gives the
// stored event's id and status. The same key with other content is an error naming both.
// The deployment must be in the database (the error lists those that are) unless
// allow_unknown_deployment; --after must be finite. Nothing is written on any error, and a
// database that cannot be written (read-only media) is an error naming the file and why.
Status Submit(const SubmitRequest& request, std::ostream& out);

}  // namespace dede::tools
