// dede/csv.h: the SDK's one reader of delimited tables. Syntax (quoting, line ends, byte-order
// mark, blank and comment lines, ragged rows, delimiters), header lookup, typed fields, and the
// exact text of every kind of error message.
#include "dede/csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace dede {
namespace {

CsvReader Reader(std::string text, const CsvOptions& options = {}) {
  Result<CsvReader> reader = CsvReader::FromString(std::move(text), "t.csv", options);
  EXPECT_TRUE(reader.ok()) << reader.status().message();
  return std::move(reader.value());
}

// Every record's fields, and the error that ended the input (empty if none).
std::vector<std::vector<std::string>> Records(CsvReader* reader, std::string* error = nullptr) {
  std::vector<std::vector<std::string>> out;
  Status status;
  while (reader->Next(&status)) {
    std::vector<std::string> fields;
    for (int c = 0; c < reader->size(); ++c) fields.emplace_back(reader->Field(c));
    out.push_back(std::move(fields));
  }
  if (error != nullptr) *error = status.message();
  return out;
}

using Rows = std::vector<std::vector<std::string>>;

CsvOptions NoHeader() {
  CsvOptions options;
  options.header = false;
  return options;
}

// The error of reading `text` to its end.
std::string ErrorOf(std::string text, const CsvOptions& options = {}) {
  Result<CsvReader> reader = CsvReader::FromString(std::move(text), "t.csv", options);
  if (!reader.ok()) return reader.status().message();
  std::string error;
  Records(&reader.value(), &error);
  return error;
}

TEST(CsvReader, ReadsAHeaderAndRecords) {
  CsvReader r = Reader("a,b,c\n1,2,3\n4,5,6\n");
  EXPECT_EQ(r.header(), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(r.Column("b"), 1);
  EXPECT_EQ(r.Column("B"), -1);
  EXPECT_EQ(r.Column("d"), -1);
  Status status;
  ASSERT_TRUE(r.Next(&status));
  EXPECT_EQ(r.size(), 3);
  EXPECT_EQ(r.line(), 2);
  EXPECT_EQ(r.Field(2), "3");
  EXPECT_EQ(r.Field(3), "");
  EXPECT_EQ(r.Field(-1), "");
  ASSERT_TRUE(r.Next(&status));
  EXPECT_EQ(r.line(), 3);
  EXPECT_FALSE(r.Next(&status));
  EXPECT_TRUE(status.ok());
  EXPECT_FALSE(r.Next(&status));  // and stays at the end
}

TEST(CsvReader, HeaderLookupIgnoresCaseWhenAsked) {
  CsvOptions options;
  options.ignore_header_case = true;
  CsvReader r = Reader("Src,DST\n1,2\n", options);
  EXPECT_EQ(r.Column("src"), 0);
  EXPECT_EQ(r.Column("dst"), 1);
  EXPECT_TRUE(r.ExpectHeader({"src", "dst"}).ok());
  EXPECT_TRUE(r.RequireColumns({"SRC"}).ok());
}

TEST(CsvReader, ExpectHeaderAndRequireColumnsNameWhatIsMissing) {
  CsvReader r = Reader("worker,job\n");
  EXPECT_TRUE(r.ExpectHeader({"worker", "job"}).ok());
  EXPECT_EQ(r.ExpectHeader({"worker", "job", "rate"}).message(),
            "t.csv:1: header is 'worker,job', expected 'worker,job,rate'");
  EXPECT_EQ(r.ExpectHeader({"job", "worker"}).message(),
            "t.csv:1: header is 'worker,job', expected 'job,worker'");
  EXPECT_TRUE(r.RequireColumns({"job"}).ok());
  EXPECT_EQ(r.RequireColumns({"job", "gpus"}).message(),
            "t.csv:1: missing column 'gpus' (the header is 'worker,job')");
}

TEST(CsvReader, QuotedFieldsHoldDelimitersQuotesAndLineEnds) {
  CsvReader r = Reader(
      "name,note\n"
      "\"a,b\",\"say \"\"hi\"\"\"\n"
      "\"two\nlines\",x\n"
      "\"\",\"crlf\r\nkept\"\n"
      "last,\"\"\n");
  EXPECT_EQ(Records(&r),
            (Rows{{"a,b", "say \"hi\""}, {"two\nlines", "x"}, {"", "crlf\r\nkept"}, {"last", ""}}));
  // A record that spans lines is named by its first line; the lines after it count on.
  CsvReader s = Reader("a,b\n\"x\ny\",1\nbad,z\n");
  Status status;
  ASSERT_TRUE(s.Next(&status));
  EXPECT_EQ(s.line(), 2);
  ASSERT_TRUE(s.Next(&status));
  EXPECT_EQ(s.line(), 4);
  int v = 0;
  EXPECT_EQ(s.Read(1, &v).message(), "t.csv:4:5: column 'b': expected an integer, got 'z'");
}

TEST(CsvReader, AQuoteInsideAnUnquotedFieldIsKept) {
  CsvReader r = Reader("a,b\n5\"\" x,y\"\n", NoHeader());
  EXPECT_EQ(Records(&r), (Rows{{"a", "b"}, {"5\"\" x", "y\""}}));
}

TEST(CsvReader, LineEndsAreLfCrlfOrCrAndTheLastIsOptional) {
  for (const std::string& text : {std::string("h\n1\n2\n"),
                                  std::string("h\r\n1\r\n2\r\n"),
                                  std::string("h\r1\r2\r"),
                                  std::string("h\n1\n2"),
                                  std::string("h\r\n1\r\n2")}) {
    CsvReader r = Reader(text);
    EXPECT_EQ(Records(&r), (Rows{{"1"}, {"2"}})) << text;
  }
  CsvReader r = Reader("h\r\n1\r\n\r\nx\r\n");
  Status status;
  ASSERT_TRUE(r.Next(&status));
  ASSERT_TRUE(r.Next(&status));
  EXPECT_EQ(r.line(), 4);  // CRLF counts one line, the blank line one
}

TEST(CsvReader, BlankLinesAndEmptyTrailingLinesAreSkipped) {
  CsvReader r = Reader("\n  \na,b\n\n1,2\n \t \n3,4\n\n\n");
  EXPECT_EQ(r.header(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Records(&r), (Rows{{"1", "2"}, {"3", "4"}}));
  // A quoted empty field is a record, not a blank line.
  CsvReader q = Reader("a\n\"\"\n");
  EXPECT_EQ(Records(&q), (Rows{{""}}));
}

TEST(CsvReader, AByteOrderMarkIsSkippedAndNotCountedInColumns) {
  CsvReader r = Reader("\xEF\xBB\xBFid,gpus\nx,1\n");
  EXPECT_EQ(r.Column("id"), 0);
  Result<CsvReader> no_header = CsvReader::FromString("\xEF\xBB\xBFx,y\n", "b.csv", NoHeader());
  ASSERT_TRUE(no_header.ok());
  Status status;
  ASSERT_TRUE(no_header->Next(&status));
  int v = 0;
  EXPECT_EQ(no_header->Read(0, &v).message(), "b.csv:1:1: field 1: expected an integer, got 'x'");
}

TEST(CsvReader, TrimmingIsOnByDefaultAndQuotesKeepTheirBlanks) {
  CsvReader r = Reader("a , b\n 1 ,\t\" 2 \" \n");
  EXPECT_EQ(r.header(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Records(&r), (Rows{{"1", " 2 "}}));
  CsvOptions keep;
  keep.trim = false;
  CsvReader k = Reader("a , b\n 1 , \"2\"\n", keep);
  EXPECT_EQ(k.header(), (std::vector<std::string>{"a ", " b"}));
  EXPECT_EQ(Records(&k), (Rows{{" 1 ", " \"2\""}}));  // RFC 4180: not a quoted field
}

TEST(CsvReader, ATrailingDelimiterMakesAnEmptyLastField) {
  CsvReader r = Reader("a,b,\n", NoHeader());
  EXPECT_EQ(Records(&r), (Rows{{"a", "b", ""}}));
}

TEST(CsvReader, RaggedRowsAreAnErrorUnlessAllowed) {
  EXPECT_EQ(ErrorOf("a,b,c\n1,2,3\n1,2\n"), "t.csv:3: 2 fields, expected 3 (the header's columns)");
  EXPECT_EQ(ErrorOf("a,b,c\n1,2,3,4\n"), "t.csv:2: 4 fields, expected 3 (the header's columns)");
  EXPECT_EQ(ErrorOf("1,2\n3\n", NoHeader()), "t.csv:2: 1 fields, expected 2 (the first record's)");
  CsvOptions ragged;
  ragged.ragged = true;
  CsvReader r = Reader("a,b,c\n1\n1,2,3,4\n", ragged);
  Status status;
  ASSERT_TRUE(r.Next(&status));
  EXPECT_EQ(r.size(), 1);
  EXPECT_EQ(r.Field(2), "");
  double v = 0;
  // A missing field is named at the end of its record.
  EXPECT_EQ(r.Read(2, &v).message(), "t.csv:2:2: column 'c': expected a number, got ''");
  ASSERT_TRUE(r.Next(&status));
  EXPECT_EQ(r.size(), 4);
  EXPECT_EQ(r.FieldName(3), "field 4");
}

TEST(CsvReader, OtherDelimiters) {
  CsvOptions semicolon = NoHeader();
  semicolon.delimiter = ';';
  CsvReader s = Reader("1,2;;3\n", semicolon);
  EXPECT_EQ(Records(&s), (Rows{{"1,2", "", "3"}}));
  CsvOptions tab;
  tab.delimiter = '\t';
  tab.trim = false;
  CsvReader t = Reader("a b\tc\n1 2\t3\n", tab);
  EXPECT_EQ(t.header(), (std::vector<std::string>{"a b", "c"}));
  EXPECT_EQ(Records(&t), (Rows{{"1 2", "3"}}));
  // Tab-separated with trimming (Gavel's .trace): a tab always separates, so two tabs enclose
  // an empty field, and only the spaces around a field are trimmed.
  CsvOptions tsv = NoHeader();
  tsv.delimiter = '\t';
  CsvReader g = Reader("A (b 1)\t\t x \t3\n\t\t\t\n", tsv);
  EXPECT_EQ(Records(&g), (Rows{{"A (b 1)", "", "x", "3"}, {"", "", "", ""}}));
  CsvOptions blanks = NoHeader();
  blanks.delimiter = CsvOptions::kWhitespace;
  blanks.ragged = true;
  CsvReader w = Reader("  state 1\nnext_round \t 4  \n\n0 0x1p+0 \"a b\"\n", blanks);
  EXPECT_EQ(Records(&w), (Rows{{"state", "1"}, {"next_round", "4"}, {"0", "0x1p+0", "a b"}}));
}

TEST(CsvReader, CommentLinesAreSkippedWhenAsked) {
  CsvOptions options;
  options.comment = '#';
  CsvReader r = Reader("# made by a tool\na,b\n  # a note\n1,#2\n\"#3\",4\n", options);
  EXPECT_EQ(r.header(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Records(&r), (Rows{{"1", "#2"}, {"#3", "4"}}));
  CsvReader plain = Reader("a\n#1\n");
  EXPECT_EQ(Records(&plain), (Rows{{"#1"}}));
}

TEST(CsvReader, Items) {
  CsvReader r = Reader("nodes,servers,none\n 0  2 3 ,\"1, 4,7\",\n");
  Status status;
  ASSERT_TRUE(r.Next(&status));
  EXPECT_EQ(r.Items(0, CsvOptions::kWhitespace), (std::vector<std::string_view>{"0", "2", "3"}));
  EXPECT_EQ(r.Items(1, ','), (std::vector<std::string_view>{"1", "4", "7"}));
  EXPECT_TRUE(r.Items(2, ',').empty());
  EXPECT_TRUE(r.Items(2, CsvOptions::kWhitespace).empty());
}

TEST(CsvReader, TypedFields) {
  CsvReader r = Reader("i,d,big,w\n-7,+2.5e3,9007199254740993,4.0\n");
  Status status;
  ASSERT_TRUE(r.Next(&status));
  int i = 0;
  double d = 0;
  std::int64_t big = 0, whole = 0;
  EXPECT_TRUE(r.Read(0, &i, -10, 10).ok());
  EXPECT_EQ(i, -7);
  EXPECT_TRUE(r.Read(1, &d, 0.0).ok());
  EXPECT_EQ(d, 2500.0);
  EXPECT_TRUE(r.Read(2, &big).ok());
  EXPECT_EQ(big, 9007199254740993);  // exact: not through a double
  EXPECT_TRUE(r.ReadIntegral(3, &whole, 1, 8).ok());
  EXPECT_EQ(whole, 4);
  EXPECT_TRUE(r.ReadIntegral(0, &whole).ok());
  EXPECT_EQ(whole, -7);
  // An infinity reads where a bound allows it.
  CsvReader inf = Reader("x\ninf\n");
  ASSERT_TRUE(inf.Next(&status));
  EXPECT_FALSE(inf.Read(0, &d).ok());
  EXPECT_TRUE(inf.Read(0, &d, 0.0, std::numeric_limits<double>::infinity()).ok());
  EXPECT_TRUE(std::isinf(d));
}

// Every message shape of the typed reads: <name>:<line>:<byte column>: <field>: expected ...,
// got '<value>'.
TEST(CsvReader, TypedFieldErrorsNameFileLineColumnFieldAndValue) {
  CsvReader r = Reader(
      "job_id,gpus,rate,weight\n"
      "x7,4.5,abc,inf\n"
      "99999999999999999999,-1,1e999,nan\n");
  Status status;
  ASSERT_TRUE(r.Next(&status));
  int i = 0;
  double d = 0;
  std::int64_t w = 0;
  EXPECT_EQ(r.Read(0, &i).message(), "t.csv:2:1: column 'job_id': expected an integer, got 'x7'");
  EXPECT_EQ(r.Read(1, &i, 1, 64).message(),
            "t.csv:2:4: column 'gpus': expected an integer in [1, 64], got '4.5'");
  EXPECT_EQ(r.ReadIntegral(1, &w, 1).message(),
            "t.csv:2:4: column 'gpus': expected an integer >= 1, got '4.5'");
  EXPECT_EQ(r.Read(2, &d).message(), "t.csv:2:8: column 'rate': expected a number, got 'abc'");
  EXPECT_EQ(r.Read(3, &d, 0.0).message(),
            "t.csv:2:12: column 'weight': expected a finite number >= 0, got 'inf'");
  EXPECT_EQ(r.Read(3, &d, -std::numeric_limits<double>::infinity(), 10.0).message(),
            "t.csv:2:12: column 'weight': expected a number <= 10, got 'inf'");
  ASSERT_TRUE(r.Next(&status));
  EXPECT_EQ(r.Read(0, &w).message(),
            "t.csv:3:1: column 'job_id': expected an integer, got '99999999999999999999'");
  EXPECT_EQ(r.Read(0, &i, 0).message(),
            "t.csv:3:1: column 'job_id': expected an integer >= 0, got '99999999999999999999'");
  EXPECT_EQ(r.Read(1, &i, 0, 1 << 20).message(),
            "t.csv:3:22: column 'gpus': expected an integer in [0, 1048576], got '-1'");
  EXPECT_EQ(r.Read(2, &d, 0.0, 1e15).message(),
            "t.csv:3:25: column 'rate': expected a finite number in [0, 1e+15], got '1e999'");
  EXPECT_EQ(r.Read(3, &d).message(), "t.csv:3:31: column 'weight': expected a number, got 'nan'");
  EXPECT_EQ(i, 0);  // unchanged on failure
  EXPECT_EQ(d, 0.0);
}

TEST(CsvReader, CallerErrorsHaveTheSameShape) {
  CsvReader r = Reader("kind,id\n  departure ,3\n");
  Status status;
  ASSERT_TRUE(r.Next(&status));
  EXPECT_EQ(r.Where(0), "t.csv:2:3");
  EXPECT_EQ(r.Where(), "t.csv:2");
  EXPECT_EQ(r.FieldName(0), "column 'kind'");
  EXPECT_EQ(r.Expected(0, "steady_state or arrival").message(),
            "t.csv:2:3: column 'kind': expected steady_state or arrival, got 'departure'");
  EXPECT_EQ(r.FieldError(1, "a second job 3 (the first is on line 2)").message(),
            "t.csv:2:14: column 'id': a second job 3 (the first is on line 2)");
  EXPECT_EQ(r.RecordError("no such pair").message(), "t.csv:2: no such pair");
  EXPECT_EQ(r.RecordError("x").code(), StatusCode::kInvalidArgument);
  // A long value is cut in messages.
  CsvReader l = Reader("x\n" + std::string(100, '7') + "q\n");
  ASSERT_TRUE(l.Next(&status));
  int v = 0;
  EXPECT_EQ(l.Read(0, &v).message(),
            "t.csv:2:1: column 'x': expected an integer, got '" + std::string(60, '7') +
                "...' (101 bytes)");
}

TEST(CsvReader, SyntaxErrorsNameWhereTheyAre) {
  EXPECT_EQ(ErrorOf("a,b\n1,\"open\n2,3\n"),
            "t.csv:2:3: the quoted field is not closed before the end of the text");
  EXPECT_EQ(ErrorOf("a,b\n\"x\"y,1\n"),
            "t.csv:2:4: 'y' after the closing quote of a field (a '\"' inside a quoted field is "
            "written \"\")");
  EXPECT_EQ(ErrorOf("\"a,b\n"),
            "t.csv:1:1: the quoted field is not closed before the end of the text");
  EXPECT_EQ(ErrorOf(""), "t.csv: empty text, expected a header line");
  EXPECT_EQ(ErrorOf("\n \n"), "t.csv: empty text, expected a header line");
  EXPECT_EQ(ErrorOf("", NoHeader()), "");
}

TEST(CsvReader, OpensFilesAndStreamsAcrossItsReadWindow) {
  EXPECT_EQ(CsvReader::Open("/nonexistent/x.csv").status().message(),
            "/nonexistent/x.csv: cannot open the file");
  EXPECT_EQ(CsvReader::Open("/nonexistent/x.csv").status().code(), StatusCode::kNotFound);
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("csv_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".csv"))
          .string();
  // Over 64 KiB: CRLFs and quoted fields with line ends fall across the reader's window.
  std::string text = "\xEF\xBB\xBFid,text\r\n";
  const int rows = 6000;
  for (int i = 0; i < rows; ++i) {
    text += std::to_string(i) + (i % 3 == 0 ? ",\"a,\r\nb\"\r\n" : ",plain text\r\n");
  }
  {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }
  {
    Result<CsvReader> r = CsvReader::Open(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->Column("id"), 0);
    Status status;
    int n = 0, line = 2;
    while (r->Next(&status)) {
      int id = -1;
      ASSERT_TRUE(r->Read(0, &id).ok());
      ASSERT_EQ(id, n);
      ASSERT_EQ(r->line(), line) << n;
      ASSERT_EQ(r->Field(1), n % 3 == 0 ? "a,\r\nb" : "plain text") << n;
      line += n % 3 == 0 ? 2 : 1;
      ++n;
    }
    EXPECT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(n, rows);
  }
  // A CRLF and a doubled quote exactly across the 64 KiB boundary.
  const std::size_t window = 64 * 1024;
  const std::pair<std::string, std::string> straddling[] = {
      {"h\n" + std::string(window - 3, 'x') + "\r\n2\r\n", std::string(window - 3, 'x')},
      {"h\n\"" + std::string(window - 4, 'a') + "\"\"\"\n2\n", std::string(window - 4, 'a') + "\""},
  };
  for (const auto& [content, first] : straddling) {
    {
      std::ofstream out(path, std::ios::binary);
      out << content;
    }
    Result<CsvReader> r = CsvReader::Open(path);
    ASSERT_TRUE(r.ok()) << r.status().message();
    Status status;
    ASSERT_TRUE(r->Next(&status));
    EXPECT_EQ(r->Field(0), first);
    ASSERT_TRUE(r->Next(&status));
    EXPECT_EQ(r->line(), 3);
    EXPECT_EQ(r->Field(0), "2");
    EXPECT_FALSE(r->Next(&status));
    EXPECT_TRUE(status.ok());
  }
  {
    std::ofstream out(path, std::ios::binary);
    out << "";
  }
  EXPECT_EQ(CsvReader::Open(path).status().message(),
            path + ": empty file, expected a header line");
  std::filesystem::remove(path);
}

TEST(ParseNumbers, TakeTheWholeTextWithAnOptionalPlus) {
  std::int64_t i = 0;
  int small = 0;
  double d = 0;
  EXPECT_TRUE(ParseInteger("+42", &i));
  EXPECT_EQ(i, 42);
  EXPECT_TRUE(ParseInteger("-42", &small));
  EXPECT_EQ(small, -42);
  for (const char* bad : {"", "+", "+-1", "--1", " 1", "1 ", "0x10", "1.0", "1e3", "3000000000"}) {
    EXPECT_FALSE(ParseInteger(bad, &small)) << bad;
  }
  EXPECT_TRUE(ParseInteger("3000000000", &i));
  EXPECT_TRUE(ParseDouble("+.5e-3", &d));
  EXPECT_EQ(d, 0.0005);
  EXPECT_TRUE(ParseDouble("-inf", &d));
  EXPECT_TRUE(std::isinf(d));
  EXPECT_TRUE(ParseDouble("nan", &d));
  EXPECT_TRUE(std::isnan(d));
  for (const char* bad : {"", "0x1p3", "1,5", " 2", "2 ", "1e999", "+-2", "e5"}) {
    EXPECT_FALSE(ParseDouble(bad, &d)) << bad;
  }
}

}  // namespace
}  // namespace dede
