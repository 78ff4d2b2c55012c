"""``python -m vshell``."""

import sys

from vshell.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
