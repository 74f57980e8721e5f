// The parser behind ReadMps (mps_reader.h): the text of one MPS file, read in one format, as
// rows and columns. ReadMps picks the format, turns the model into a Problem and formats errors.
#pragma once

#include <string>
#include <vector>

#include "dede/problem.h"
#include "exact/mps_reader.h"

namespace dede::internal {

struct MpsRow {
  std::string name;
  char type = 'N';          // 'N', 'E', 'L' or 'G'
  std::vector<Term> terms;  // Term::var is the column index; no zeros, each column once
  double rhs = 0.0;
  double range = 0.0;
  long long line = 0;        // its ROWS line
  long long rhs_line = 0;    // 0: no RHS entry
  long long range_line = 0;  // 0: no RANGES entry
};

struct MpsColumn {
  std::string name;
  double cost = 0.0;
  double lower = 0.0;
  double upper = kInfinity;
  bool integer = false;
  long long line = 0;        // its first COLUMNS line
  long long lower_line = 0;  // the BOUNDS card that set the lower bound; 0: none did
  long long upper_line = 0;
};

struct MpsModel {
  ObjectiveSense sense = ObjectiveSense::kMinimize;
  int objective = -1;  // index in rows of the objective (the first N row); -1: none
  double objective_rhs = 0.0;
  std::vector<MpsRow> rows;
  std::vector<MpsColumn> columns;
};

struct MpsError {
  long long line = 0;   // 0: about the file as a whole
  std::string message;  // "COLUMNS: value 'abc' of ...", without path and line
  bool text = false;    // about the bytes (control character, line length): any format fails
};

// Reads `path` in `format` (kFixed or kFree; kAuto is ReadMps's business) into *model. The
// size limit on the file is checked by the caller; the reader stops at kMpsMaxFileBytes anyway.
bool ParseMps(const std::string& path, MpsFormat format, MpsModel* model, MpsError* error);

}  // namespace dede::internal
