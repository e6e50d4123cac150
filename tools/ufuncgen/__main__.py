import sys

from .ufuncgen import main

sys.exit(main())
