"""Hostile but realistic input for `orchestrate`: files to write into a work folder, and the command lines to try.

Each case is the arguments after `orchestrate`, the exit status expected (2 for
bad input, 1 for a failure) and a fragment of the one `error:` line. Files
named in a case are made by `write_files` in the work folder first, beside a
results database holding the sweep `demo`. The plugin cases run with broken
plugin packages installed (`write_plugin`, on PYTHONPATH): each stops the
command before it stores anything, in one line naming the package.
"""

import json
from pathlib import Path
from typing import NamedTuple

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


class PluginPackage(NamedTuple):
    """An installed plugin package: its version, its entry points (group to name to `module:attribute`), its modules."""

    version: str
    entry_points: dict[str, dict[str, str]]
    modules: dict[str, str]  # a module's path (`pkg/mod.py`) to its source


def _declared(params: str = "", body: str = "return None", top: str = "") -> str:
    """The source of a module declaring one plugin algorithm `search`, with `params` (a dict's text) and `body`."""
    return (f"from slidelab.plugin import Param, algorithm\n{top}\n\n@algorithm(params={{{params}}})\n"
            f"def search(problem, **params):\n    \"\"\"A plugin of the hostile corpus.\"\"\"\n    {body}\n")


def _algorithm(name: str, module: str) -> dict[str, dict[str, str]]:
    return {"slidelab.algorithms": {name: f"{module}:search"}}


# Plugin packages broken each in one way (issue 48, section 5). A case names the packages on its PYTHONPATH,
# where each is installed as pip would: its modules beside a `<name>-<version>.dist-info` folder.
PLUGINS: dict[str, PluginPackage] = {
    "ghost-module": PluginPackage("1.0", _algorithm("ghost", "ghost_module.algorithms"), {}),
    "ghost-attribute": PluginPackage("1.0", {"slidelab.algorithms": {"absent": "ghost_attribute:absent"}},
                                     {"ghost_attribute.py": _declared()}),
    "broken-import": PluginPackage("0.3", _algorithm("broken", "broken_import"),
                                   {"broken_import.py": "import numpy.no_such_module\n" + _declared()}),
    "syntax-error": PluginPackage("0.1", _algorithm("typo", "syntax_error"), {"syntax_error.py": "def search(:\n"}),
    **{f"clash-{name}": PluginPackage("1.0", _algorithm(f"clash-{name}", f"clash_{name}"),
                                       {f"clash_{name}.py": _declared(f"{name!r}: Param(1, int, 'clashes')")})
       for name in ("k", "seed", "heuristic", "time_limit", "json")},
    "untyped": PluginPackage("2.1", _algorithm("untyped", "untyped"), {"untyped.py": _declared("'depth': 3")}),
    "twin-a": PluginPackage("1.0", _algorithm("twin", "twin_a"), {"twin_a.py": _declared()}),
    "twin-b": PluginPackage("1.0", _algorithm("twin", "twin_b"), {"twin_b.py": _declared()}),
    "astar-again": PluginPackage("1.0", _algorithm("astar", "astar_again"), {"astar_again.py": _declared()}),
    "undeclared": PluginPackage("1.0", _algorithm("bare", "undeclared"), {"undeclared.py": "def search(problem):\n    return None\n"}),
    "heuristic-as-algorithm": PluginPackage("1.0", {"slidelab.algorithms": {"h": "heuristic_as_algorithm:h"}}, {
        "heuristic_as_algorithm.py": "from slidelab.plugin import heuristic\n\n\n@heuristic(domain='rushhour', admissible=True)\n"
                                     "def h(spec, work, key):\n    return 0\n"}),
    "no-domain": PluginPackage("1.0", {"slidelab.heuristics": {"h": "no_domain:h"}}, {
        "no_domain.py": "from slidelab.plugin import heuristic\n\n\n@heuristic(domain='sokoban', admissible=True)\n"
                        "def h(spec, work, key):\n    return 0\n"}),
    "chatty-import": PluginPackage("1.0", _algorithm("chatty", "chatty_import"),
                                   {"chatty_import.py": _declared(top="print('hello from chatty-import')")}),
    "chatty-search": PluginPackage("1.0", _algorithm("chatter", "chatty_search"),
                                   {"chatty_search.py": _declared(body="print('expanding', problem.start)")}),
}

PLUGIN_CASES: list[tuple[list[str], list[str], int, str]] = [  # (packages, arguments, exit status, fragment)
    (["ghost-module"], ["sweep", "--algo", "bfs", "--boards", COURSE], 2,
     "plugin ghost-module 1.0: entry point ghost = ghost_module.algorithms:search does not load (ModuleNotFoundError"),
    (["ghost-attribute"], ["algorithms", "--json"], 2, "plugin ghost-attribute 1.0: entry point absent = ghost_attribute:absent"
     " does not load (AttributeError"),
    (["broken-import"], ["solve", COURSE, "--algo", "bfs", "--json"], 2, "plugin broken-import 0.3: entry point broken"),
    (["syntax-error"], ["sweeps"], 2, "plugin syntax-error 0.1: entry point typo = syntax_error:search does not load (SyntaxError"),
    *[([f"clash-{name}"], ["sweep", "--algo", "bfs", "--boards", COURSE], 2,
       f"plugin clash-{name} 1.0: clash-{name}'s parameter '{name}' is named like one of slidelab's own options")
      for name in ("k", "seed", "heuristic", "time_limit", "json")],
    (["untyped"], ["tune", "--name", "t", "--algo", "beam", "--k", "1..5", "--boards", COURSE, "--trials", "1"], 2,
     "plugin untyped 2.1: untyped's parameter 'depth' has no type"),
    (["twin-a", "twin-b"], ["sweep", "--algo", "bfs", "--boards", COURSE], 2, "an algorithm named 'twin' is registered"
     " already by twin-"),
    (["astar-again"], ["algorithms"], 2, "plugin astar-again 1.0: an algorithm named 'astar' is registered already by slidelab"),
    (["undeclared"], ["sweep", "--algo", "bfs", "--boards", COURSE], 2,
     "plugin undeclared 1.0: bare is not declared with slidelab.plugin.algorithm"),
    (["heuristic-as-algorithm"], ["algorithms"], 2, "h is not declared with slidelab.plugin.algorithm"),
    (["no-domain"], ["algorithms"], 2, "plugin no-domain 1.0: heuristic h is for 'sokoban', which is no domain"),
    (["chatty-import"], ["algorithms", "--json"], 2, "plugin chatty-import 1.0 printed to stdout when imported"),
    (["chatty-search"], ["solve", COURSE, "--algo", "chatter", "--json"], 2,
     "plugin chatty-search 1.0 printed to stdout while it searched ('expanding"),
]


def write_plugin(folder: Path, name: str, package: PluginPackage) -> Path:
    """`package` installed as `name` in a folder of its own under `folder` (put it on PYTHONPATH); that folder."""
    site = folder / f"site-{name}"
    info = site / f"{name.replace('-', '_')}-{package.version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {package.version}\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{entry} = {value}\n" for entry, value in entries.items()) + "\n"
        for group, entries in package.entry_points.items()))
    for path, source in package.modules.items():
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_text(source)
    return site


def write_files(folder: Path, spec: dict) -> None:
    """The corpus's files in `folder`, the spec edits made from `spec` (the demo sweep's exported one)."""
    for name, content in FILES.items():
        if isinstance(content, bytes):
            (folder / name).write_bytes(content)
        else:
            (folder / name).write_text(content)
    for name, (key, value) in SPEC_EDITS.items():
        (folder / name).write_text(json.dumps({**spec, key: value}))
