"""The shell builtins: commands that need the shell itself (variables, descriptors, flow)."""
