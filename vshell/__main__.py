"""``python -m vshell``."""

from vshell.cli.main import console

if __name__ == "__main__":
    console()
