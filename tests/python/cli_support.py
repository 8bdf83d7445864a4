"""Running the CLI and reading nccl-tests' table, for comparisons with the package."""

import os
import subprocess


def run_cli(cli, *args, env=None):
    """The CLI's stdout; fails the test on a non-zero exit. `env` (a dict) replaces the NCCL_*
    variables of this process's environment: the CLI reads them as nccl_tests(env=...) does."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("NCCL")}
    full_env.update(env or {})
    done = subprocess.run(
        [cli, *args], capture_output=True, text=True, env=full_env, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def nccl_tests_float(value, width):
    """nccl-tests' getFloatStr (src/util.cu @a0b82b22): "%*.2f" if it fits `width`, else .1f,
    .0f, then an exponent cut to `width`."""
    for digits in (2, 1, 0):
        text = "%*.*f" % (width, digits, value)
        if len(text) <= width:
            return text
    exponent = "%*.1e" if width >= 7 else "%*.0e"
    return (exponent % (width, value))[:width]


def table_rows(printout):
    """nccl-tests' result rows: the lines that are not comments, split on blanks."""
    return [line.split() for line in printout.splitlines() if line and not line.startswith("#")]
