"""The package as installed: its version, its stubs and its metadata."""
import importlib.metadata
import pathlib
import re

import ufuncx as ux

ROOT = pathlib.Path(__file__).resolve().parents[2]
PKG = pathlib.Path(ux.__file__).parent


def test_version_is_the_cmake_project_version():
    cmake = (ROOT / "CMakeLists.txt").read_text()
    want = re.search(r"project\(ufuncx VERSION ([0-9.]+)", cmake).group(1)
    assert ux.__version__ == want
    assert "__version__" in ux.__all__


def test_installed_metadata_matches():
    try:
        meta = importlib.metadata.metadata("ufuncx")
    except importlib.metadata.PackageNotFoundError:
        return  # a build tree on PYTHONPATH has no metadata; the installed wheel checks it
    if pathlib.Path(importlib.metadata.distribution("ufuncx").locate_file("ufuncx")) != PKG:
        return  # another copy is installed beside the one under test
    assert meta["Version"] == ux.__version__
    assert meta["License-Expression"] == "Apache-2.0"
    assert any(u.startswith("Repository") for u in meta.get_all("Project-URL"))
    assert "Typing :: Typed" in meta.get_all("Classifier")


def test_stubs_ship_and_name_every_ufunc():
    assert (PKG / "py.typed").exists()
    stub = (PKG / "__init__.pyi").read_text()
    declared = set(re.findall(r"^(\w+): (?:_U|_GU|ufunc)", stub, re.M))
    assert set(ux.registry()) <= declared
    for alias, name in ux._core.aliases():
        assert alias in declared
    assert re.search(r"^add: _UFunc_Nin2_Nout1$", stub, re.M)
    assert re.search(r"^divmod: _UFunc_Nin2_Nout2$", stub, re.M)
    assert re.search(r"^matmul: _GUFunc_Nin2_Nout1$", stub, re.M)
    # the front ends' stubs ship too, and __all__ there names every ufunc
    assert (PKG / "torchlike.pyi").exists() and (PKG / "asctile.pyi").exists()
    assert "__all__ += [" in stub and "    'add'," in stub
