"""The one error type of the solver core."""


class PuzzleError(Exception):
    """A problem with the caller's input, worded as one line for the user.

    `source` names the file (or "<board>" for a literal string) and `line` the
    1-based line the problem is on, when there is one.
    """

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source if self.source is None or len(self.source) <= 200 else self.source[:197] + "..."
        where = where or ""
        if self.source and self.line is not None:
            where = f"{self.source}:{self.line}"
        return f"{where}: {self.message}" if where else self.message
