"""Checks a notebook executed by notebooks/run.

Usage: check_outputs.py EXECUTED.ipynb COMMITTED.ipynb

It fails (exit status 1, with a message naming the notebook and the cell) if a
cell has an error output — GoNB reports compile errors and panics that way —
or if a cell displayed fewer images than the same cell of the committed
notebook. On success it rewrites EXECUTED without the per-cell execution
timestamps, so that `notebooks/run --update` changes only the outputs.
"""

import json
import os
import sys


def first_line(cell):
    """The first line of a cell that is Go code, not a GoNB special command."""
    for line in "".join(cell.get("source", "")).splitlines():
        if line.strip() and not line.startswith(("%", "!")):
            return line.strip()
    return ""


def images(cell):
    return sum(
        1
        for o in cell.get("outputs", [])
        if o.get("output_type") in ("display_data", "execute_result")
        and any(k.startswith("image/") for k in o.get("data", {}))
    )


def main():
    out_path, committed_path = sys.argv[1:3]
    name = os.path.basename(committed_path)

    def say(msg):
        print(f"notebooks/run: {name}: {msg}", file=sys.stderr)

    with open(out_path) as f:
        nb = json.load(f)
    with open(committed_path) as f:
        committed = json.load(f)

    failed = [
        (i, cell, out)
        for i, cell in enumerate(nb["cells"], 1)
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]
    if failed:
        # Report the first failure in full: later cells often fail only because of it.
        i, cell, err = failed[0]
        say(f"cell {i} failed (starting {first_line(cell)!r}):")
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                for line in "".join(out.get("text", "")).splitlines()[-20:]:
                    print("    " + line, file=sys.stderr)
        trace = err.get("traceback") or [f"{err.get('ename', '')}: {err.get('evalue', '')}"]
        for line in "\n".join(trace).splitlines()[:40]:
            print("    " + line, file=sys.stderr)
        later = sorted({j for j, _, _ in failed[1:]})
        if later:
            say(f"cells {', '.join(map(str, later))} failed too")
        return 1

    # A lost image is a failure, not a silently emptier notebook.
    bad = False
    if len(committed["cells"]) == len(nb["cells"]):
        for i, (old, new) in enumerate(zip(committed["cells"], nb["cells"]), 1):
            if images(new) < images(old):
                say(
                    f"cell {i} (starting {first_line(new)!r}) displayed {images(new)} "
                    f"image(s); the committed notebook has {images(old)}"
                )
                bad = True
    if bad:
        return 1

    for cell in nb["cells"]:
        cell.get("metadata", {}).pop("execution", None)
    tmp = out_path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(nb, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
