"""Result lists that convert to pandas where pandas is installed (an optional dependency)."""


def _pandas():
    try:
        import pandas
    except ImportError as e:  # pandas is optional: say how to get it
        raise ImportError("to_pandas() needs pandas: pip install pandas") from e
    return pandas


class Records(list):
    """A list of dicts, one per row; ``to_pandas()`` makes a DataFrame of it.

    Nested dicts become dotted columns (``compute_by_operation.matmul``), as
    ``pandas.json_normalize`` writes them; lists stay as cells.
    """

    def to_pandas(self):
        pd = _pandas()
        if not self:
            return pd.DataFrame()
        return pd.json_normalize(list(self))


class NcclTestsResult(Records):
    """The out-of-place rows of an nccl-tests run, one dict per size.

    Each row: ``size`` (bytes), ``count``, ``type``, ``redop``, ``root``, ``time_us``,
    ``algbw`` and ``busbw`` (GB/s) as the printed out-of-place columns, and the in-place
    columns as ``in_place_time_us``, ``in_place_algbw``, ``in_place_busbw``. Values are the
    simulator's doubles; printed with nccl-tests' formats they give the CLI's digits.

    Attributes: ``printout`` (what the binary prints, byte for byte as the CLI prints it),
    ``notes`` (what the CLI prints on stderr), ``json`` (the -J file's text when -J was given,
    else ""), ``json_path`` (the file written, else ""), ``machine`` and ``ranks``.
    """

    def __init__(self, rows, printout="", notes="", json="", json_path="", machine="", ranks=0):
        super().__init__(rows)
        self.printout = printout
        self.notes = notes
        self.json = json
        self.json_path = json_path
        self.machine = machine
        self.ranks = ranks
