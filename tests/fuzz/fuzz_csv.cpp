// The SDK's delimited-table reader (dede/csv.h) on any bytes: byte 0 picks the options (the
// delimiter, header, trim, ragged rows, comments) and whether the text streams from a file
// (the 64 KiB window) or is read from a string; the first fields of the first records are then
// read as every type, split into items and named in an error, as the plugins do.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "dede/csv.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t pick = data[0];
  dede::CsvOptions options;
  static const char kDelimiters[4] = {',', ';', '\t', dede::CsvOptions::kWhitespace};
  options.delimiter = kDelimiters[pick & 3];
  options.header = (pick & 4) != 0;
  options.trim = (pick & 8) != 0;
  options.ragged = (pick & 16) != 0;
  options.comment = (pick & 32) != 0 ? '#' : '\0';
  options.ignore_header_case = (pick & 128) != 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  dede::Result<dede::CsvReader> opened =
      (pick & 64) != 0
          ? dede::CsvReader::Open(dede::fuzz::WriteInput(data + 1, size - 1, ".csv"), options)
          : dede::CsvReader::FromString(text, "fuzz.csv", options);
  if (!opened.ok()) return 0;
  dede::CsvReader& csv = opened.value();
  (void)csv.Column("a");
  (void)csv.ExpectHeader({"a", "b"});
  (void)csv.RequireColumns({"a"});
  dede::Status status;
  int records = 0;
  while (csv.Next(&status)) {
    // The typed reads on a few fields of the first records and one past their end: each
    // failed read builds a message, which would otherwise make the fuzzer slow (every record
    // is still parsed).
    if (++records > 64) continue;
    for (const int c : {-1, 0, 1, 2, 3, csv.size()}) {
      int i = 0;
      std::int64_t l = 0;
      double d = 0;
      (void)csv.Read(c, &i, 0, 100);
      (void)csv.Read(c, &l);
      (void)csv.Read(c, &d, 0.0, 1e15);
      (void)csv.ReadIntegral(c, &l, -5, 5);
      (void)csv.Items(c, ',');
      (void)csv.Items(c, dede::CsvOptions::kWhitespace);
      (void)csv.Expected(c, "x");
      (void)csv.RecordError("y");
    }
  }
  return 0;
}
