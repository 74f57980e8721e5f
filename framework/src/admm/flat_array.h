// A fixed-size array of doubles for the engine's per-side state: one contiguous allocation,
// backed by transparent huge pages where the kernel offers them on request (madvise mode), so
// that streams into many of its ranges at once do not miss the TLB on every access.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace dede::internal {

class FlatArray {
 public:
  FlatArray() = default;
  FlatArray(const FlatArray&) = delete;
  FlatArray& operator=(const FlatArray&) = delete;
  ~FlatArray() { Free(); }

  // Discards the contents; the new elements are zero. (Through operator new, as the rest of
  // the engine's heap, so that a replaced one counts it.)
  void Assign(std::size_t n) {
    Free();
    size_ = n;
    if (n == 0) return;
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    const std::size_t bytes = n * sizeof(double);
    align_ = bytes >= kHuge ? kHuge : 64;
    const std::size_t rounded = (bytes + align_ - 1) / align_ * align_;
    data_ = static_cast<double*>(::operator new (rounded, std::align_val_t{align_}));
#ifdef MADV_HUGEPAGE
    if (align_ == kHuge) (void)madvise(data_, rounded, MADV_HUGEPAGE);
#endif
    std::memset(data_, 0, rounded);
  }
  void Swap(FlatArray& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(align_, other.align_);
  }
  double* data() { return data_; }
  const double* data() const { return data_; }
  std::size_t size() const { return size_; }
  double& operator[](std::size_t i) { return data_[i]; }
  double operator[](std::size_t i) const { return data_[i]; }

 private:
  void Free() {
    if (data_ != nullptr) ::operator delete (data_, std::align_val_t{align_});
    data_ = nullptr;
  }
  double* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t align_ = 64;
};

}  // namespace dede::internal
