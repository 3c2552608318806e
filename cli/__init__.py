"""The ``sagani`` command (``main``): one module per group of subcommands, and the console."""
