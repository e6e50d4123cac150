"""ufuncx: NumPy-style universal functions from a generated registry.

Every NumPy numeric ufunc is available by its NumPy name (and aliases), as an
object that behaves like ``numpy.ufunc``::

    import numpy as np, ufuncx as ux
    ux.add(np.arange(3), 1.5)          # array([1.5, 2.5, 3.5])
    ux.divmod(np.arange(5), 3)          # (array([0, 0, 0, 1, 1]), array([0, 1, 2, 0, 1]))
"""
from . import _core
from . import _docs
from . import _methods
from ._at import ufunc_at as _ufunc_at
from ._core import __version__
from ._core import (can_cast, get_num_threads, loop_targets, promote_types, release_memory,
                    set_num_threads, simd_targets, ufunc)
from ._jax_at import at
from ._scatter import scatter

__all__ = ["__version__", "ufunc", "registry", "simd_targets", "loop_targets", "promote_types", "can_cast",
           "scatter", "at", "torchlike", "asctile", "load_plugin", "release_memory",
           "set_num_threads", "get_num_threads"]



class _Doc:
    """ufunc.__doc__: NumPy's first line and the table's summary, then (built-ins)
    the numpydoc sections generated from the table, until a caller sets its own
    (kept in the object's __dict__, as NumPy keeps it); deleting it brings
    the generated text back. On the class, the class's docstring."""

    def __init__(self, class_doc):
        self.class_doc = class_doc

    def __get__(self, obj, cls=None):
        if obj is None:
            return self.class_doc
        doc = obj.__dict__.get("__doc__")
        if doc is not None:
            return doc
        sections = _docs.SECTIONS.get(obj.__name__)  # built-ins: numpydoc from the table
        return obj._default_doc + "\n\n" + sections if sections else obj._default_doc

    def __set__(self, obj, value):
        obj.__dict__["__doc__"] = value

    def __delete__(self, obj):
        obj.__dict__.pop("__doc__", None)


ufunc.__doc__ = _Doc(ufunc.__doc__)
ufunc.at = _ufunc_at
ufunc.reduce = _methods.reduce
ufunc.accumulate = _methods.accumulate
ufunc.reduceat = _methods.reduceat
ufunc.outer = _methods.outer
ufunc.resolve_dtypes = _methods.resolve_dtypes
ufunc.__signature__ = property(_methods.signature_of)

# Pickling: a ufunc pickles by name, with the plugins that defined or
# extended it, and unpickles to the same object (loading those plugins
# first in a fresh process), as NumPy's ufuncs pickle by name.
_PLUGIN_PATHS = {}  # ufunc name -> paths of the plugins that added to it, in load order


def _unpickle_ufunc(name, plugins=()):
    for path in plugins:
        load_plugin(path)
    return globals()[name]


ufunc.__reduce__ = lambda self: (_unpickle_ufunc,
                                 (self.__name__, tuple(_PLUGIN_PATHS.get(self.__name__, ()))))
ufunc.__copy__ = lambda self: self
ufunc.__deepcopy__ = lambda self, memo: self


def registry():
    """Names of every registered ufunc, in table order (built-ins first,
    then those of loaded plugins).

    Returns
    -------
    list of str
        One name per ufunc object (aliases such as ``abs`` are not listed).

    Examples
    --------
    >>> import ufuncx as ux
    >>> names = ux.registry()
    >>> names[:3]
    ['add', 'subtract', 'multiply']
    >>> ux.add is getattr(ux, names[0])
    True
    """
    return list(_core.registry())


def load_plugin(path):
    """Loads a plugin built by ``ufuncx-codegen --build`` and publishes its
    new ufuncs as ``ufuncx.<name>``; its overloads join the existing ufunc
    objects.

    Loading the same file again does nothing. The plugin's ufuncs pickle by
    name with the plugin's path, so worker processes load it too.

    Parameters
    ----------
    path : str or os.PathLike
        The plugin's shared library.

    Returns
    -------
    list of str
        The names the plugin defined or extended.

    Raises
    ------
    FileNotFoundError
        When `path` does not exist.
    ValueError
        When the file is not a ufuncx plugin, was built for another ufuncx
        ABI, or defines a name or a loop that already exists; nothing of it
        is registered then.

    See Also
    --------
    registry : the names registered so far.
    """
    import errno
    import os
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if "\0" in path:
        raise ValueError("load_plugin: embedded null byte in path")
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    names = _core.load_plugin(path)
    for name in names:
        paths = _PLUGIN_PATHS.setdefault(name, [])
        if os.path.abspath(path) not in paths:
            paths.append(os.path.abspath(path))
    g = globals()
    for name in names:
        if name not in g:
            g[name] = _core.get(name)
            __all__.append(name)
    for alias, name in _core.aliases():
        if name in names and alias not in g:
            g[alias] = g[name]
            __all__.append(alias)
    return list(names)


def _publish():
    g = globals()
    for name in _core.registry():
        g[name] = _core.get(name)
        __all__.append(name)
    for alias, name in _core.aliases():
        g[alias] = g[name]
        __all__.append(alias)


_publish()
del _publish

from . import asctile, torchlike  # noqa: E402  (they use the ufuncs above)
