"""Executes a notebook with nbclient and fails on any error (scripts/test.sh runs it on
examples/linksim-quickstart.ipynb). The notebook file is not rewritten.

    python scripts/run-notebook.py NOTEBOOK [TIMEOUT_SECONDS]
"""

import sys

import nbformat
from nbclient import NotebookClient


def main():
    path = sys.argv[1]
    timeout_s = int(sys.argv[2]) if len(sys.argv) > 2 else 600
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=timeout_s, kernel_name="python3").execute()
    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
        or (output.get("output_type") == "stream" and output.get("name") == "stderr")
    ]
    if errors:
        for output in errors:
            print(output.get("text") or "\n".join(output.get("traceback", [])), file=sys.stderr)
        sys.exit(f"{path}: {len(errors)} error or stderr outputs")
    print(f"{path}: {sum(c.cell_type == 'code' for c in notebook.cells)} code cells ran clean")


if __name__ == "__main__":
    main()
