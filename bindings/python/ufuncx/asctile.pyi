# Type stubs for ufuncx.asctile.
from typing import Any, SupportsIndex

import numpy as np

from numpy.typing import NDArray

__all__ = ["scatter"]

def scatter(src: NDArray[Any], dim: int | np.integer[Any], index: NDArray[Any], dst: NDArray[Any],
            offsets: list[int] | tuple[int, ...], check_bounds: bool = ...,
            num_indices: SupportsIndex | None = ...) -> None: ...
