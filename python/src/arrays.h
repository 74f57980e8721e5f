// Reading NumPy arrays passed to the dede module: without a copy when the array is C-contiguous
// and already of the type the model stores (float64, int32 or int64 indices), with one
// conversion otherwise. Every check names the argument and the position at fault, as a
// ValueError: "rhs[3] = nan: a finite number is required".
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace dede::python {

namespace py = pybind11;

// A ValueError naming an argument (pybind11 maps std::invalid_argument to ValueError).
[[noreturn]] void ThrowValue(const std::string& message);
std::string FormatNumber(double value);

// A one-dimensional float64 view of `object` (a NumPy array, a sequence or a scalar broadcast
// to `size` when size >= 0). Shape mismatches and non-numeric input raise ValueError.
class DoubleArray {
 public:
  DoubleArray(const py::handle& object, std::string name, std::ptrdiff_t size = -1);
  std::size_t size() const { return size_; }
  double operator[](std::size_t i) const { return scalar_ ? scalar_value_ : data_[i]; }
  const std::string& name() const { return name_; }
  // Every value finite (or, with allow_infinite, not NaN); with non_negative also >= 0.
  void CheckFinite(bool allow_infinite = false) const;
  void CheckNonNegative() const;
  // True if the array shares the caller's buffer (no conversion was needed).
  bool borrowed() const { return borrowed_; }

 private:
  std::string name_;
  py::array_t<double, py::array::c_style | py::array::forcecast> array_;
  const double* data_ = nullptr;
  std::size_t size_ = 0;
  bool scalar_ = false;
  bool borrowed_ = false;
  double scalar_value_ = 0.0;
};

// A one-dimensional integer view: int32 and int64 C-contiguous arrays are read in place, other
// integer types converted once; floats, booleans and objects raise ValueError.
class IndexArray {
 public:
  IndexArray(const py::handle& object, std::string name, std::ptrdiff_t size = -1);
  std::size_t size() const { return size_; }
  std::int64_t operator[](std::size_t i) const {
    return scalar_ ? scalar_value_ : (data32_ ? data32_[i] : data64_[i]);
  }
  const std::string& name() const { return name_; }
  // Every value in [low, high); else "name[i] = v is out of range [low, high) (what)".
  void CheckRange(std::int64_t low, std::int64_t high, const std::string& what) const;
  bool borrowed() const { return borrowed_; }

 private:
  std::string name_;
  py::array array_;
  const std::int32_t* data32_ = nullptr;
  const std::int64_t* data64_ = nullptr;
  std::size_t size_ = 0;
  bool scalar_ = false;
  bool borrowed_ = false;
  std::int64_t scalar_value_ = 0;
};

// The rows of a compressed sparse row matrix (scipy.sparse.csr_matrix's indptr, indices, data):
// row k holds indices[indptr[k]:indptr[k+1]]. Checks indptr (starts at 0, non-decreasing, ends
// at len(indices)), indices within [0, columns) and finite data.
struct CsrRows {
  CsrRows(const py::handle& indptr,
          const py::handle& indices,
          const py::handle& data,
          std::int64_t columns,
          const char* name);
  std::size_t rows() const { return indptr.size() - 1; }
  IndexArray indptr;
  IndexArray indices;
  DoubleArray data;
};

}  // namespace dede::python
