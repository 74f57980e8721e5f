#include "exact/mps_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <utility>

#include "exact/mps_reader.h"

namespace dede::internal {
namespace {

constexpr std::size_t kBufferBytes = std::size_t{1} << 16;

// Fixed-format fields, 1-based inclusive columns (mps_reader.h). Field 4 reaches up to field 5
// and field 6 to the end of the line, so that numbers wider than 12 characters are read.
struct Span {
  std::size_t first, last;
};
constexpr std::array<Span, 7> kFixedSpans = {
    {{0, 0}, {2, 3}, {5, 12}, {15, 22}, {25, 39}, {40, 47}, {50, std::string_view::npos}}};
// The documented columns, for messages.
constexpr std::array<const char*, 7> kFixedColumns = {"",
                                                      "columns 2-3",
                                                      "columns 5-12",
                                                      "columns 15-22",
                                                      "columns 25-36",
                                                      "columns 40-47",
                                                      "columns 50-61"};

std::string_view Trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

}  // namespace

MpsLineReader::MpsLineReader(const std::string& path)
    : in_(path, std::ios::binary), buffer_(kBufferBytes) {}

bool MpsLineReader::Fill() {
  if (!in_) return false;
  in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  pos_ = 0;
  end_ = static_cast<std::size_t>(in_.gcount());
  bytes_ += end_;
  if (in_.bad()) {
    error_ = "read error";
    return false;
  }
  if (bytes_ > kMpsMaxFileBytes) {
    error_ = "the file is larger than " + std::to_string(kMpsMaxFileBytes) + " bytes";
    return false;
  }
  return end_ > 0;
}

bool MpsLineReader::Next(std::string* line) {
  line->clear();
  bool any = false;  // a byte of this line was read (the last line may lack a line feed)
  while (true) {
    if (pos_ == end_ && !Fill()) break;
    const char* start = buffer_.data() + pos_;
    const auto* feed = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
    const std::size_t n = feed ? static_cast<std::size_t>(feed - start) : end_ - pos_;
    // One more than the limit for a carriage return before the line feed.
    if (line->size() + n > kMpsMaxLineLength + 1) {
      ++line_number_;
      error_ = "the line is longer than " + std::to_string(kMpsMaxLineLength) + " characters";
      return false;
    }
    line->append(start, n);
    pos_ += n;
    any = true;
    if (feed) {
      ++pos_;
      return Finish(line);
    }
  }
  if (!error_.empty()) {
    ++line_number_;
    return false;
  }
  return any && Finish(line);
}

// Checks a complete line: MPS is text, so a control character (a NUL byte, a stray carriage
// return) is an error rather than part of a name.
bool MpsLineReader::Finish(std::string* line) {
  ++line_number_;
  if (!line->empty() && line->back() == '\r') line->pop_back();
  if (line->size() > kMpsMaxLineLength) {
    error_ = "the line is longer than " + std::to_string(kMpsMaxLineLength) + " characters";
    return false;
  }
  for (std::size_t i = 0; i < line->size(); ++i) {
    const auto c = static_cast<unsigned char>((*line)[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      error_ =
          fmt::format("control character 0x{:02x} in column {} (an MPS file is text)", c, i + 1);
      return false;
    }
  }
  return true;
}

void SplitMpsTokens(std::string_view line, std::vector<std::string_view>* tokens) {
  tokens->clear();
  std::size_t i = 0;
  while (true) {
    i = line.find_first_not_of(" \t", i);
    if (i == std::string_view::npos) return;
    const std::size_t end = std::min(line.find_first_of(" \t", i), line.size());
    tokens->push_back(line.substr(i, end - i));
    i = end;
  }
}

bool SplitMpsFixedFields(std::string_view line, MpsFields* fields, std::string* why) {
  if (const std::size_t tab = line.find('\t'); tab != std::string_view::npos) {
    *why = "a tab in column " + std::to_string(tab + 1) +
           ": fixed format finds fields by column (use spaces, or free format)";
    return false;
  }
  // Columns 4, 13-14, 23-24 and 48-49 separate the fields (a data line starts with a blank);
  // `before` is the field a gap column follows.
  static constexpr std::array<std::pair<std::size_t, int>, 7> kGaps = {
      {{4, 1}, {13, 2}, {14, 2}, {23, 3}, {24, 3}, {48, 5}, {49, 5}}};
  for (const auto& [column, before] : kGaps) {
    if (column > line.size() || line[column - 1] == ' ') continue;
    const std::size_t first = line.find_last_of(' ', column - 1) + 1;  // npos + 1 == 0
    const std::string_view text = line.substr(first, line.find(' ', column - 1) - first);
    *why = "text '" + std::string(text) + "' reaches column " + std::to_string(column) +
           ", between field " + std::to_string(before) + " (" + kFixedColumns[before] +
           ") and field " + std::to_string(before + 1) + " (" + kFixedColumns[before + 1] + ")";
    return false;
  }
  for (std::size_t k = 1; k <= 6; ++k) {
    const Span span = kFixedSpans[k];
    if (span.first > line.size()) {
      fields->field[k] = {};
      continue;
    }
    const std::size_t length =
        span.last == std::string_view::npos ? std::string_view::npos : span.last - span.first + 1;
    fields->field[k] = Trim(line.substr(span.first - 1, length));
  }
  return true;
}

std::string MpsFieldLabel(int field, bool fixed) {
  std::string label = "field " + std::to_string(field);
  if (fixed) label += std::string(", ") + kFixedColumns[field];
  return label;
}

MpsNumber ParseMpsNumber(std::string_view text, double* value) {
  // std::from_chars takes no '+' sign; one is fine before a digit or a point.
  if (text.size() > 1 && text[0] == '+' && text[1] != '-' && text[1] != '+') text.remove_prefix(1);
  if (text.empty()) return MpsNumber::kNotANumber;
  const char* end = text.data() + text.size();
  double parsed = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), end, parsed, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) return MpsNumber::kOutOfRange;
  if (ec != std::errc() || ptr != end) return MpsNumber::kNotANumber;
  *value = parsed;
  return MpsNumber::kOk;
}

std::string MpsNumberText(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char text[32];
  const auto [ptr, ec] = std::to_chars(text, text + sizeof(text), value);
  if (ec != std::errc()) return std::to_string(value);
  return std::string(text, ptr);
}

}  // namespace dede::internal
