"""``python -m vshell``."""

if __name__ == "__main__":
    import gc

    gc.disable()  # while vshell.cli.main is imported; console() turns it back on (see there)

    from vshell.cli.main import console

    console()
