"""bashlex behind a shim: the guard and shared types (`base`), table cache, tokenizer, reader,
scanners."""
