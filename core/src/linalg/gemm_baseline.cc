// GEMM for the baseline instruction set (see gemm_impl.inc).
#define UFX_GEMM_NS baseline
#include "linalg/gemm_impl.inc"
