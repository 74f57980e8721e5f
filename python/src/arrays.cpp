#include "arrays.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace dede::python {

void ThrowValue(const std::string& message) { throw std::invalid_argument(message); }

std::string FormatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

namespace {

std::string Position(const std::string& name, std::size_t i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

// A NumPy array of `object` without forcing a copy, or an error naming the argument.
py::array AsArray(const py::handle& object, const char* name) {
  if (py::isinstance<py::array>(object)) return py::reinterpret_borrow<py::array>(object);
  try {
    return py::array::ensure(object);
  } catch (const py::error_already_set&) {
  }
  ThrowValue(std::string(name) + ": expected an array or a number, got " +
             std::string(py::str(py::type::of(object).attr("__name__"))));
}

void CheckSize(const char* name, std::size_t got, std::ptrdiff_t want) {
  if (want >= 0 && got != static_cast<std::size_t>(want))
    ThrowValue(std::string(name) + ": expected " + std::to_string(want) + " values, got " +
               std::to_string(got));
}

void CheckOneDimensional(const py::array& a, const char* name) {
  if (a.ndim() != 1)
    ThrowValue(std::string(name) + ": expected a one-dimensional array, got " +
               std::to_string(a.ndim()) + " dimensions");
}

}  // namespace

DoubleArray::DoubleArray(const py::handle& object, std::string name_in, std::ptrdiff_t size)
    : name_(std::move(name_in)) {
  const char* name = name_.c_str();
  py::array raw = AsArray(object, name);
  const char kind = raw.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u')
    ThrowValue(std::string(name) + ": expected numbers, got an array of dtype " +
               std::string(py::str(raw.dtype())));
  if (raw.ndim() == 0 && size >= 0) {
    scalar_ = true;
    scalar_value_ = py::cast<double>(py::float_(raw.attr("item")()));
    size_ = static_cast<std::size_t>(size);
    return;
  }
  CheckOneDimensional(raw, name);
  borrowed_ = raw.dtype().is(py::dtype::of<double>()) && (raw.flags() & py::array::c_style) != 0;
  array_ = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(raw);
  if (!array_) ThrowValue(std::string(name) + ": cannot be read as float64");
  data_ = array_.data();
  size_ = static_cast<std::size_t>(array_.size());
  CheckSize(name, size_, size);
}

void DoubleArray::CheckFinite(bool allow_infinite) const {
  for (std::size_t i = 0; i < (scalar_ ? std::size_t{1} : size_); ++i) {
    const double v = (*this)[i];
    if (std::isnan(v) || (!allow_infinite && std::isinf(v)))
      ThrowValue(
          (scalar_ ? std::string(name_) : Position(name_, i)) + " = " + FormatNumber(v) + ": " +
          (allow_infinite ? "a number is required (not NaN)" : "a finite number is required"));
  }
}

void DoubleArray::CheckNonNegative() const {
  for (std::size_t i = 0; i < (scalar_ ? std::size_t{1} : size_); ++i) {
    const double v = (*this)[i];
    if (!(v >= 0.0))
      ThrowValue((scalar_ ? std::string(name_) : Position(name_, i)) + " = " + FormatNumber(v) +
                 ": must be >= 0");
  }
}

IndexArray::IndexArray(const py::handle& object, std::string name_in, std::ptrdiff_t size)
    : name_(std::move(name_in)) {
  const char* name = name_.c_str();
  py::array raw = AsArray(object, name);
  const char kind = raw.dtype().kind();
  if (kind != 'i' && kind != 'u')
    ThrowValue(std::string(name) + ": expected integer indices, got an array of dtype " +
               std::string(py::str(raw.dtype())));
  if (raw.ndim() == 0 && size >= 0) {
    scalar_ = true;
    scalar_value_ = py::cast<std::int64_t>(raw.attr("item")());
    size_ = static_cast<std::size_t>(size);
    return;
  }
  CheckOneDimensional(raw, name);
  const bool contiguous = (raw.flags() & py::array::c_style) != 0;
  if (contiguous && raw.dtype().is(py::dtype::of<std::int32_t>())) {
    array_ = raw;
    data32_ = static_cast<const std::int32_t*>(raw.data());
    borrowed_ = true;
  } else if (contiguous && raw.dtype().is(py::dtype::of<std::int64_t>())) {
    array_ = raw;
    data64_ = static_cast<const std::int64_t*>(raw.data());
    borrowed_ = true;
  } else {
    if (kind == 'u' && raw.itemsize() >= 8) {
      // uint64 above 2^63 would wrap: compare as Python integers.
      for (py::ssize_t i = 0; i < raw.size(); ++i) {
        py::object v = raw.attr("item")(i);
        if (py::int_(v) > py::int_(std::int64_t{1} << 62))
          ThrowValue(Position(name, static_cast<std::size_t>(i)) + " = " + std::string(py::str(v)) +
                     " is too large for an index");
      }
    }
    auto converted =
        py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(raw);
    array_ = converted;
    data64_ = converted.data();
  }
  size_ = static_cast<std::size_t>(array_.size());
  CheckSize(name, size_, size);
}

void IndexArray::CheckRange(std::int64_t low, std::int64_t high, const std::string& what) const {
  for (std::size_t i = 0; i < (scalar_ ? std::size_t{1} : size_); ++i) {
    const std::int64_t v = (*this)[i];
    if (v < low || v >= high)
      ThrowValue((scalar_ ? std::string(name_) : Position(name_, i)) + " = " + std::to_string(v) +
                 " is out of range [" + std::to_string(low) + ", " + std::to_string(high) + ") (" +
                 what + ")");
  }
}

CsrRows::CsrRows(const py::handle& indptr_object,
                 const py::handle& indices_object,
                 const py::handle& data_object,
                 std::int64_t columns,
                 const char* name)
    : indptr(indptr_object, std::string(name) + ".indptr"),
      indices(indices_object, std::string(name) + ".indices"),
      data(data_object, std::string(name) + ".data", static_cast<std::ptrdiff_t>(indices.size())) {
  const std::string prefix = std::string(name) + ".";
  if (indptr.size() == 0) ThrowValue(prefix + "indptr: must hold at least one value (0)");
  if (indptr[0] != 0)
    ThrowValue(prefix + "indptr[0] = " + std::to_string(indptr[0]) + ": must be 0");
  for (std::size_t k = 1; k < indptr.size(); ++k) {
    if (indptr[k] < indptr[k - 1])
      ThrowValue(prefix + "indptr[" + std::to_string(k) + "] = " + std::to_string(indptr[k]) +
                 " < indptr[" + std::to_string(k - 1) + "] = " + std::to_string(indptr[k - 1]) +
                 ": must not decrease");
  }
  if (indptr[indptr.size() - 1] != static_cast<std::int64_t>(indices.size()))
    ThrowValue(prefix + "indptr[-1] = " + std::to_string(indptr[indptr.size() - 1]) +
               ": must equal the number of indices (" + std::to_string(indices.size()) + ")");
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] < 0 || indices[i] >= columns)
      ThrowValue(prefix + "indices[" + std::to_string(i) + "] = " + std::to_string(indices[i]) +
                 " is out of range [0, " + std::to_string(columns) + ") (variable ids)");
  }
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (!std::isfinite(data[i]))
      ThrowValue(prefix + "data[" + std::to_string(i) + "] = " + FormatNumber(data[i]) +
                 ": a finite coefficient is required");
  }
}

}  // namespace dede::python
