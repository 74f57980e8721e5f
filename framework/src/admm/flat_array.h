// A fixed-size array of doubles for the engine's per-side state: one contiguous allocation,
// backed by transparent huge pages where the kernel offers them on request (madvise mode), so
// that streams into many of its ranges at once do not miss the TLB on every access.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

namespace dede::internal {

class FlatArray {
 public:
  FlatArray() = default;
  FlatArray(const FlatArray&) = delete;
  FlatArray& operator=(const FlatArray&) = delete;
  ~FlatArray() { std::free(data_); }

  // Discards the contents; the new elements are zero.
  void Assign(std::size_t n) {
    std::free(data_);
    data_ = nullptr;
    size_ = n;
    if (n == 0) return;
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    const std::size_t bytes = n * sizeof(double);
    const std::size_t align = bytes >= kHuge ? kHuge : 64;
    const std::size_t rounded = (bytes + align - 1) / align * align;
    data_ = static_cast<double*>(std::aligned_alloc(align, rounded));
    if (data_ == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (align == kHuge) (void)madvise(data_, rounded, MADV_HUGEPAGE);
#endif
    std::memset(data_, 0, rounded);
  }
  double* data() { return data_; }
  const double* data() const { return data_; }
  std::size_t size() const { return size_; }
  double& operator[](std::size_t i) { return data_[i]; }
  double operator[](std::size_t i) const { return data_[i]; }

 private:
  double* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace dede::internal
