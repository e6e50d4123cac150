// Highway passes over scatter index arrays (index_scan.cc).
#ifndef UFUNCX_SCATTER_INDEX_SCAN_H_
#define UFUNCX_SCATTER_INDEX_SCAN_H_

#include <cstdint>

namespace ufuncx::internal {

struct IndexScan {
  bool in_range = true;          // lo <= p[i] < hi for every i
  bool has_negative = false;     // some p[i] < 0
  // Runs, from a prefix of the array: of `pairs_sampled` neighbour pairs
  // (p[i], p[i + 1]), how many are equal.
  // descending_pairs: of those pairs, how many have p[i] > p[i + 1].
  int64_t pairs_sampled = 0;
  int64_t equal_neighbours = 0;
  int64_t descending_pairs = 0;
  bool runs() const { return pairs_sampled > 0 && equal_neighbours * 2 >= pairs_sampled; }
  bool sorted_prefix() const { return descending_pairs == 0; }
};

// One Highway pass over a contiguous index array p[0..n).
IndexScan ScanIndices(const int64_t* p, int64_t n, int64_t lo, int64_t hi);
IndexScan ScanIndices(const int32_t* p, int64_t n, int64_t lo, int64_t hi);

// Of n contiguous int64 indices p (plus wrap_size where negative) and their
// 8-byte updates, keeps in order those with lo <= index < lo + span (the
// wrapped index) into kept / kept_upd, which need room
// for n + kKeepSliceSlack entries (whole vectors are stored). Returns how
// many it kept.
inline constexpr int64_t kKeepSliceSlack = 256 / 8;  // (the widest Highway vector: 256 bytes)
int64_t KeepSlice64(const int64_t* p, const uint64_t* upd, int64_t n, int64_t wrap_size,
                    int64_t lo, int64_t span, int64_t* kept, uint64_t* kept_upd);

}  // namespace ufuncx::internal

#endif  // UFUNCX_SCATTER_INDEX_SCAN_H_
