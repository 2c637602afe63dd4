"""The command line's exit statuses, and the error for arguments that describe no usable input."""

EXIT_OK = 0
EXIT_INVALID_TABLE = 1
EXIT_BROKEN_PIPE = 1
EXIT_BAD_INPUT = 2


class CliInputError(ValueError):
    """Arguments that parse but do not describe a usable input (e.g. a rack for nobody)."""
