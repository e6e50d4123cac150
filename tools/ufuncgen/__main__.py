import sys

if __package__ == "ufuncx.codegen":  # the installed user tool: python -m ufuncx.codegen
    from .codegen import main
else:  # the build's generator: python -m tools.ufuncgen
    from .ufuncgen import main

sys.exit(main())
