"""The dtypes ufuncx computes on: NumPy's bool, integer, float and complex
types, and ml_dtypes' bfloat16, float8_e4m3fn and float8_e5m2 (when the
optional ml_dtypes package is installed; their NumPy kind is 'V' or 'f')."""

ML_NAMES = frozenset({"bfloat16", "float8_e4m3fn", "float8_e5m2"})


def is_ml(dtype):
    """Whether `dtype` is one of the ml_dtypes types ufuncx has loops for."""
    return dtype.name in ML_NAMES and dtype.type.__module__ == "ml_dtypes"


def numeric(dtype):
    """Whether ufuncx has loops for `dtype`."""
    return dtype.kind in "biufc" or is_ml(dtype)
