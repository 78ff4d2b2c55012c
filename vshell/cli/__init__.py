"""The command-line front ends: `vshell` (main), its review subcommands, the REPL."""
