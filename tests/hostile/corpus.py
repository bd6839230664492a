"""Hostile but realistic input for `orchestrate`: files to write into a work folder, and the command lines to try.

Each case is the arguments after `orchestrate`, the exit status expected (2 for
bad input, 1 for a failure) and a fragment of the one `error:` line. Files
named in a case are made by `write_files` in the work folder first, beside a
results database holding the sweep `demo`.
"""

import json
from pathlib import Path

HEADER = "car,orientation,col,row,length\n"
COURSE = "data/boards/rushhour/Rushhour6x6_1.csv"


def _rushhour_json(size: object) -> str:
    return json.dumps({"red": "A", "size": size, "vehicles": [["A", "H", 1, 1, 2]], "walls": []})


FILES: dict[str, str | bytes] = {
    "Rushhour64x64_1.csv": HEADER + "X,H,1,3,2\n",
    "Rushhour100000x100000_1.csv": HEADER + "X,H,1,3,2\n",
    "Rushhour" + "9" * 31 + "x" + "9" * 31 + "_1.csv": HEADER + "X,H,1,3,2\n",
    "size100000.json": _rushhour_json(100000),
    "size1e9.json": _rushhour_json(10**9),
    "size31digits.json": _rushhour_json(10**30),
    "wide64.json": _rushhour_json(64),
    "digits5000.json": _rushhour_json(1).replace('"size": 1', '"size": ' + "9" * 5000),
    "row5000.csv": HEADER + "X,H,1," + "9" * 5000 + ",2\n",
    "Rushhour6x6_fullwidth.csv": HEADER + "X,H,\uff11,3,2\n",
    "Rushhour6x6_arabic.csv": HEADER + "X,H,\u0663,3,2\n",
    "Rushhour6x6_underscore.csv": HEADER + "X,H,0_2,3,2\n",
    "longfield.csv": "a" * 200_000 + "\n",
    "longfield-list.csv": "tiles," + "b" * 200_000 + "\n1 2 3 4 5 6 7 8 0,x\n",
    "fullwidth.txt": "\uff11 \uff12 \uff13\n\uff14 \uff15 \uff16\n\uff17 \uff18 \uff10\n",
    "nul.txt": "1 2 3\x00\n4 5 6\n7 8 0\n",
    "comments.txt": "# only\n# comments\n",
    "tiles5000.txt": "1 2 3/4 5 6/7 8 " + "9" * 5000 + "\n",
    "spec-deep.json": "[" * 100_000,
    "binary.csv": bytes(range(256)) * 4,
}

SPEC_EDITS = {  # spec files made from the demo sweep's exported spec, each with one hostile change
    "spec-nan.json": ("limits", {"time_limit": float("nan")}),
    "spec-k-true.json": ("params", {"k": [True]}),
    "spec-repeat-true.json": ("repeat", True),
    "spec-grid-2000.json": ("params", {"k": list(range(1, 2001)), "heuristic": [f"h{i}" for i in range(2000)]}),
    "spec-repeat-1e9.json": ("repeat", 10**9),
    "spec-passwd.json": ("boards", [{"domain": "rushhour", "text": "/etc/passwd", "name": "x"}]),
    "spec-name-path.json": ("name", "../../escaped"),
}

CASES: list[tuple[list[str], int, str]] = [
    # Boards too large for the kernels' 64-bit masks, or whose size is absurd
    (["solve", "Rushhour64x64_1.csv", "--algo", "bfs"], 2, "too large (maximum 63)"),
    (["solve", "Rushhour100000x100000_1.csv", "--algo", "bfs"], 2, "too large (maximum 63)"),
    (["solve", "Rushhour" + "9" * 31 + "x" + "9" * 31 + "_1.csv", "--algo", "bfs"], 2, "too large"),
    (["solve", "size100000.json", "--algo", "bfs"], 2, "too large (maximum 63)"),
    (["solve", "size1e9.json", "--algo", "bfs"], 2, "too large (maximum 63)"),
    (["solve", "size31digits.json", "--algo", "bfs"], 2, "too large (maximum 63)"),
    (["solve", "wide64.json", "--algo", "bfs"], 2, "too large (maximum 63)"),
    (["solve", "AA" + "o" * (64 * 64 - 2), "--algo", "bfs"], 2, "too large (maximum 63)"),
    (["sweep", "--algo", "bfs", "--boards", "wide64.json", "--dry-run"], 2, "too large (maximum 63)"),
    # Numbers of thousands of digits, in other scripts, with underscores
    (["solve", "digits5000.json", "--algo", "bfs"], 2, "not valid JSON"),
    (["solve", "row5000.csv", "--algo", "bfs", "--size", "6"], 2, "row must be an integer of at most 9 ASCII digits"),
    (["solve", "Rushhour6x6_fullwidth.csv", "--algo", "bfs"], 2, "ASCII digits"),
    (["solve", "Rushhour6x6_arabic.csv", "--algo", "bfs"], 2, "ASCII digits"),
    (["solve", "Rushhour6x6_underscore.csv", "--algo", "bfs"], 2, "ASCII digits"),
    (["solve", "tiles5000.txt", "--algo", "bfs"], 2, "too large for a tile number"),
    (["solve", "longfield.csv", "--algo", "bfs"], 2, "longfield.csv"),
    (["solve", "longfield-list.csv", "--algo", "bfs"], 2, "longfield-list.csv"),
    (["solve", "binary.csv", "--algo", "bfs"], 2, "binary.csv"),
    # N-puzzle texts that are no Rush Hour grids either
    (["solve", "fullwidth.txt", "--algo", "bfs"], 2, "is not a tile number (an integer in ASCII digits)"),
    (["solve", "nul.txt", "--algo", "bfs"], 2, "\\x00"),
    (["solve", "comments.txt", "--algo", "bfs"], 2, "only comments"),
    # Literal boards with a typo say what a board string holds
    (["solve", "aAoooooooooooooooooooooooooooooooooo", "--algo", "bfs"], 2, "not a board string"),
    (["solve", "AAoooooooooooooooooooooooooooooooo\u00c9", "--algo", "bfs"], 2, "not a board string"),
    (["solve", "1 2 3/4 5 6/7 8 -1", "--algo", "bfs"], 2, "-1 is out of range"),
    (["solve", "1.0 2 3/4 5 6/7 8 0", "--algo", "bfs"], 2, "not a board string"),
    (["solve", "x" * 5000, "--algo", "bfs"], 2, "Fogleman string has 5000 cells"),
    (["solve", "\u00e9" * 5000, "--algo", "bfs"], 2, "not a board string"),
    # Parameters and limits out of range
    (["solve", COURSE, "--algo", "beam", "--k", "1" + "0" * 30], 2, "k must be a whole number below 2^63"),
    (["solve", COURSE, "--algo", "beam", "--k", "9" * 5000], 2, "--k"),
    (["solve", COURSE, "--algo", "bfs", "--time-limit", "-1"], 2, "--time-limit"),
    (["solve", COURSE, "--algo", "bfs", "--time-limit", "nan"], 2, "--time-limit"),
    (["solve", COURSE, "--algo", "bfs", "--max-nodes", "-1"], 2, "--max-nodes"),
    (["solve", COURSE, "--algo", "bfs", "--memory-limit", "9" * 40 + "G"], 2, "more than 1 PiB"),
    (["solve", COURSE, "--algo", "spr", "--seed", str(2**64)], 2, "--seed"),
    (["sweep", "--algo", "beam", "--k", "1..1e30", "--boards", COURSE, "--dry-run"], 2, "out of range"),
    (["sweep", "--algo", "beam", "--k", "1..2:1e-30", "--boards", COURSE, "--dry-run"], 2, "out of range"),
    (["sweep", "--algo", "beam", "--k", "NaN..5", "--boards", COURSE, "--dry-run"], 2, "not a finite number"),
    (["sweep", "--algo", "beam", "--k", "1..Infinity", "--boards", COURSE, "--dry-run"], 2, "not a finite number"),
    (["sweep", "--algo", "beam", "--k", "sNaN", "--boards", COURSE, "--dry-run"], 2, "not a finite number"),
    (["sweep", "--algo", "beam", "--k", "9" * 5000, "--boards", COURSE, "--dry-run"], 2, "out of range"),
    # Exponents that overflow decimal arithmetic, and an algorithm of split searches on a board it cannot search
    (["sweep", "--algo", "beam", "--k", "1e999999999", "--boards", COURSE, "--dry-run"], 2, "out of range"),
    (["sweep", "--algo", "beam", "--k", "1..1e999999999", "--boards", COURSE, "--dry-run"], 2, "out of range"),
    (["sweep", "--algo", "beam", "--k", "1..2:1e-999999999", "--boards", COURSE, "--dry-run"], 2, "out of range"),
    (["tune", "--name", "huge", "--algo", "moves-freed", "--w-exit", "0..1e999999999", "--boards", COURSE,
      "--trials", "1"], 2, "out of range"),
    (["solve", COURSE, "--algo", "idastar-subtree"], 2, "N-puzzle boards only"),
    (["sweep", "--algo", "spr", "--batches", "1..100000", "--batch-size", "1..100000", "--boards", COURSE,
      "--dry-run"], 2, "more than the cap of 1,000,000"),
    (["sweep", "--algo", "bfs", "--repeat", "1000000000", "--boards", COURSE, "--dry-run"], 2, "--repeat"),
    (["sweep", "--algo", "bfs", "--time-limit", "1e30", "--boards", COURSE, "--dry-run"], 2, "--time-limit"),
    (["split", "412763580", "--depth", "1" + "0" * 24, "--heuristic", "manhattan"], 2, "--depth"),
    (["job", str(2**63)], 2, "JOB"),
    (["jobs", "demo", "--limit", "1" + "0" * 30], 2, "--limit"),
    # Sweep specs that hang, recurse, or carry what a spec must not
    (["sweep", "--from-spec", "/dev/zero", "--dry-run"], 2, "not a regular file"),
    (["sweep", "--from-spec", "spec-deep.json", "--dry-run"], 2, "nested too deeply"),
    (["sweep", "--from-spec", "spec-nan.json", "--dry-run"], 2, "NaN"),
    (["sweep", "--from-spec", "spec-k-true.json", "--dry-run"], 2, "k must be a whole number"),
    (["sweep", "--from-spec", "spec-repeat-true.json", "--dry-run"], 2, "'repeat' must be a int"),
    (["sweep", "--from-spec", "spec-grid-2000.json", "--dry-run"], 2, "more than the cap"),
    (["sweep", "--from-spec", "spec-repeat-1e9.json", "--dry-run"], 2, "more than the cap"),
    (["sweep", "--from-spec", "spec-passwd.json", "--dry-run"], 2, "board 1"),
    (["sweep", "--from-spec", "spec-name-path.json", "--dry-run"], 2, "sweep name"),
    # Names that would be paths or terminal commands
    (["sweep", "--name", "../../x", "--algo", "bfs", "--boards", COURSE], 2, "sweep name"),
    (["sweep", "--name", "/abs/x", "--algo", "bfs", "--boards", COURSE], 2, "sweep name"),
    (["sweep", "--name", "red\x1b[31mname", "--algo", "bfs", "--boards", COURSE], 2, "\\x1b"),
    (["report", "../../x", "--format", "html"], 2, "no sweep named"),
    # Outputs that cannot be written, or must not be
    (["report", "demo", "--format", "html", "--out", "nodir/x.html"], 1, "No such file or directory"),
    (["report", "demo", "--format", "html", "--out", "data"], 1, "Is a directory"),
    (["report", "demo", "--format", "csv", "--out", "/dev/full"], 1, "No space left on device"),
    (["export", "demo", "--out", "nodir/x.csv"], 1, "No such file or directory"),
    (["export", "demo", "--out", "slidelab.db"], 2, "is the results database being read"),
    (["report", "demo", "--format", "csv", "--out", "slidelab.db"], 2, "is the results database being read"),
    (["report", "demo", "--by", "1..3"], 2, "--by"),
    # URLs
    (["sweeps", "--db", "mysql://u@h/db"], 2, "not mysql"),
    (["sweeps", "--db", "postgresql://u@127.0.0.1:abc/db"], 2, "port is not a number"),
    (["sweeps", "--db", "not a url"], 2, "does not parse"),
    (["sweep", "--algo", "bfs", "--boards", COURSE, "--broker", "redis://:SECRET/x@host:1/0"], 2, "broker URL"),
    (["sweep", "--algo", "bfs", "--boards", COURSE, "--broker", "nonsense"], 2, "broker URL"),
    # Another application's database is never migrated
    (["sweeps", "--db", "sqlite:///foreign.db"], 2, "not a slidelab results database"),
    (["sweep", "--algo", "bfs", "--boards", COURSE, "--db", "sqlite:///foreign.db"], 2,
     "not a slidelab results database"),
    (["db", "upgrade", "--db", "sqlite:///foreign.db"], 2, "not a slidelab results database"),
]

SECRETS = ("SECRET",)  # never printed


def write_files(folder: Path, spec: dict) -> None:
    """The corpus's files in `folder`, the spec edits made from `spec` (the demo sweep's exported one)."""
    for name, content in FILES.items():
        if isinstance(content, bytes):
            (folder / name).write_bytes(content)
        else:
            (folder / name).write_text(content)
    for name, (key, value) in SPEC_EDITS.items():
        (folder / name).write_text(json.dumps({**spec, key: value}))
