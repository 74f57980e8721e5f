// Reads a general LP / MILP in MPS format into a dede::Problem, so the exact baseline can be
// checked against published optima (tests/data/netlib).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "dede/problem.h"

namespace dede::internal {

// How the fields of a data line are found.
//   kFixed: by column, as in IBM's MPSX format: field 1 = columns 2-3 (a row or bound type),
//     2 = 5-12, 3 = 15-22 (names), 4 = 25-36 (a number), 5 = 40-47 (a name), 6 = 50-61 (a
//     number). A name may contain spaces (leading and trailing ones are dropped). Columns 37-39
//     belong to field 4 and field 6 runs to the end of the line, so a wide number is read; any
//     other text outside the fields, or a tab, is an error.
//   kFree: separated by spaces and tabs; names have no length limit and no spaces. The RHS,
//     RANGES and BOUNDS vector names may be left out (the field count tells).
//   kAuto: free format first; if that reading fails, fixed format. Free format comes first
//     because a fixed-format file whose names have no spaces (every Netlib file but FORPLAN)
//     reads the same in both, and a name with a space changes a line's field count or puts a
//     name where a number belongs, so such a file fails as free format and falls through to
//     fixed. If both fail, the error of the reading that got further (free format on a tie) is
//     reported, and says where the other one stopped.
enum class MpsFormat : std::uint8_t { kAuto, kFixed, kFree };

// Limits that keep a small or hostile file from costing unbounded memory or time.
inline constexpr std::uintmax_t kMpsMaxFileBytes = std::uintmax_t{1} << 30;  // 1 GiB
inline constexpr std::size_t kMpsMaxLineLength = 4096;  // characters, without the line end

// Reads the MPS file at `path` into *out (our own reader: no CoinMpsIO).
//
// Sections, in this order: NAME (optional), ROWS, COLUMNS, RHS, RANGES, BOUNDS (the last three
// optional), ENDATA; OBJSENSE (MAX, MAXIMIZE, MIN or MINIMIZE, on its own line or after the
// keyword) may come once anywhere before ENDATA. Lines that start with '*' and blank lines are
// comments; a line that starts in column 1 is a section header, a data line starts with a
// space or tab. Text after ENDATA is not read. Other sections (SOS, QUADOBJ, OBJNAME, ...) are
// errors, as is a file without ENDATA (a truncated file would otherwise lose its bounds).
//
// A general LP has no resource/demand structure, so it becomes a Problem with one resource and
// one demand in which every column is a local variable of resource 0 and every row a resource-0
// constraint, in file order:
//   - The first N row is the objective, minimised unless OBJSENSE says MAX. Other N rows are
//     dropped with their COLUMNS and RHS entries; a RANGES entry on any N row is an error.
//   - E rows are equalities, L / G rows inequalities. RANGES R on a row with right-hand side
//     rhs: E with R > 0 covers [rhs, rhs + R], E with R < 0 [rhs + R, rhs] (R = 0: rhs),
//     L [rhs - |R|, rhs], G [rhs, rhs + |R|]. A row with two finite, different sides becomes
//     two constraints, "<name>.lo" (>=) and "<name>.up" (<=). A row without RHS entry has rhs 0.
//   - The objective's constant is minus the objective row's RHS entry, the convention the
//     Netlib optima use (E226).
//   - Columns default to [0, +inf]. Columns between MARKER 'INTORG' and 'INTEND' lines are
//     integer; one that no BOUNDS card names gets [0, 1] (CoinMpsIO's rule).
//   - BOUNDS: UP, LO, FX, FR (free), MI (lower -inf), PL (upper +inf), BV ([0, 1], integer),
//     LI / UI (integer lower / upper). A value of magnitude 1e30 or more, or "inf", is infinite.
//     UP or UI with a negative value on a column whose lower bound no card set also makes the
//     lower bound -inf (CoinMpsIO's rule; an explicit LO, before or after, wins). Each bound of
//     a column may be set by one card; FR, FX and BV set both. FR, MI, PL and BV ignore a
//     value. SC (semi-continuous) is an error.
//   - Coefficients of 0 are dropped. Column and row names are kept as variable and constraint
//     names.
// Only one RHS, RANGES and BOUNDS vector is read; a second vector name is an error (CoinMpsIO
// skipped the others silently).
//
// Returns false on any error and leaves *out untouched; *error (if not null) then reads
// "<path>:<line>: <SECTION>: <what>", naming the field and the offending text, e.g.
// "a.mps:12: COLUMNS: value 'abc' of column 'X' in row 'R' is not a number". Errors: a missing,
// unreadable or non-regular file; one over kMpsMaxFileBytes; a line over kMpsMaxLineLength; a
// control character (NUL, ...; tab and a CR before the line feed are fine); an unknown,
// unsupported, repeated or out-of-order section; a wrong field count or text outside the fixed
// fields; an unknown row type, bound type or marker; a row declared twice; an unknown row or
// column; a column whose entries are not contiguous or that has two entries in one row; two RHS
// or RANGES entries for a row; a number that is not a number, or not finite where no infinity
// is meaningful (COLUMNS, RHS, RANGES, FX); a bound set twice or a lower bound above the upper;
// an unclosed or unopened integer marker; a missing ROWS, COLUMNS or ENDATA section.
bool ReadMps(const std::string& path,
             Problem* out,
             std::string* error,
             MpsFormat format = MpsFormat::kAuto);

}  // namespace dede::internal
