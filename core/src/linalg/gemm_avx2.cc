// GEMM for AVX2+FMA, compiled with -mavx2 -mfma (see CMakeLists.txt and
// gemm_impl.inc). Eigen is renamed so its AVX2 template instances stay
// distinct from the baseline ones.
#define Eigen ufuncx_eigen_avx2
#define UFX_GEMM_NS avx2
#include "linalg/gemm_impl.inc"
