"""ufuncgen: the ufunc table -> C++ generator (Python standard library only)."""
