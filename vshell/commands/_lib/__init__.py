"""Engines and helpers the commands share (quoting, options, copy, diff, dates, sort keys)."""
