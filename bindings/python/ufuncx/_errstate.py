"""Floating-point errors reported as NumPy reports them.

The native module clears the CPU's floating-point flags before a call,
reduction or scatter and reads them after it (worker threads' flags
included); only when one is set does it call `report`, which acts on
NumPy's current error state (``np.errstate`` / ``np.seterr`` /
``np.seterrcall``) exactly as NumPy's ufuncs do: each flag in the order
divide, over, under, invalid is ignored, warned about (RuntimeWarning),
raised (FloatingPointError), passed to the error callable, printed or
logged, with NumPy's texts ("divide by zero encountered in divide").
"""
import sys
import warnings

import numpy as np

# (flag bit as the native module passes it, np.geterr() key, NumPy's text)
_KINDS = ((1, "divide", "divide by zero"), (2, "over", "overflow"),
          (4, "under", "underflow"), (8, "invalid", "invalid value"))


def _stacklevel():
    """The warnings stacklevel of the first caller outside ufuncx."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("ufuncx"):
        frame, level = frame.f_back, level + 1
    return level


# NumPy 2.x keeps its error state in a context variable holding a capsule
# (None where a NumPy lays it out otherwise: then np.geterr() every time).
_extobj_contextvar = getattr(sys.modules.get("numpy._core.umath"), "_extobj_contextvar", None)
_last_state = (None, None)  # (NumPy's capsule, np.geterr() of it), held alive


def _error_state():
    """np.geterr(), decoded once per NumPy error state: the capsule in
    NumPy's context variable is replaced whenever np.errstate / np.seterr
    change it, and holding it here keeps its identity from being reused."""
    global _last_state
    if _extobj_contextvar is None:
        return np.geterr()
    capsule = _extobj_contextvar.get()
    seen, state = _last_state
    if capsule is not seen:
        state = np.geterr()
        _last_state = (capsule, state)
    return state


def ignored_bits():
    """The report's flag bits that NumPy's current error state ignores (the
    native module asks once per state and skips `report` for those)."""
    state = _error_state()
    return sum(bit for bit, key, _ in _KINDS if state[key] == "ignore")


def report(flags, name):
    state = _error_state()
    for bit, key, text in _KINDS:
        if not flags & bit:
            continue
        mode = state[key]
        if mode == "ignore":
            continue
        message = f"{text} encountered in {name}"
        if mode == "warn":
            warnings.warn(message, RuntimeWarning, stacklevel=_stacklevel())
        elif mode == "raise":
            raise FloatingPointError(message)
        elif mode == "call":
            callback = np.geterrcall()
            if callback is None:
                raise ValueError(f"Callback function must be callable for '{key}' error "
                                 f"handling (found None)")
            callback(text, flags)
        elif mode == "print":
            print(f"Warning: {message}", file=sys.stderr)
        elif mode == "log":
            np.geterrcall().write(f"Warning: {message}\n")
