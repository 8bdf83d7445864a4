"""linksim.InputError: the C++ library's one error for bad input (sim/core/error.hpp)."""


class InputError(ValueError):
    """Bad input: a file, a shipped name, a JSON value or an argument linksim refuses.

    ``str(error)`` is the line the CLI prints; the parts are:

    * ``file``: the file at fault ("" when the input was an argument, not a file);
    * ``location``: where in it: a JSON pointer such as ``/links/3/bandwidth``, "line 4,
      column 7", or the argument or flag (e.g. ``nccl-tests -b``);
    * ``message``: what was expected.

    It is a ValueError, so code that catches ValueError catches it too.
    """

    def __init__(self, text: str, file: str = "", location: str = "", message: str = ""):
        super().__init__(text)
        self.file = file
        self.location = location
        self.message = message or text

    def __reduce__(self):  # picklable, e.g. across multiprocessing
        return (type(self), (str(self), self.file, self.location, self.message))
