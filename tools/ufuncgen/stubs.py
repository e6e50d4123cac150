"""Type stubs from the ufunc table: the package's hand-written stub header
followed by one annotated name per ufunc and alias, typed by its shape."""

_SHAPES = {(1, 1): "_UFunc_Nin1_Nout1", (1, 2): "_UFunc_Nin1_Nout2",
           (2, 1): "_UFunc_Nin2_Nout1", (2, 2): "_UFunc_Nin2_Nout2"}


def stub_class(entry) -> str:
    """The stub class of a ufunc: its (nin, nout) shape, the gufunc class
    for generalized ufuncs, the plain `ufunc` for any other shape."""
    if entry.signature is not None:
        return "_GUFunc_Nin2_Nout1" if (entry.nin, entry.nout) == (2, 1) else "ufunc"
    return _SHAPES.get((entry.nin, entry.nout), "ufunc")


def stub(entries, header: str) -> str:
    lines = [header.rstrip("\n")]
    names = []
    for e in entries:
        if e.overload:
            continue
        cls = stub_class(e)
        for name in (e.name,) + e.aliases:
            lines.append(f"{name}: {cls}")
            names.append(name)
    lines.append("")
    lines.append("__all__ += [")
    lines.extend(f"    {n!r}," for n in names)
    lines.append("]")
    return "\n".join(lines) + "\n"
