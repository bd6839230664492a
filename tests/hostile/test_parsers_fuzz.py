"""Every parser at the boundary, fed anything: it returns a value or raises a `PuzzleError`, nothing else.

Hypothesis draws arbitrary text and near misses of valid input (real boards
with a character changed, numbers of many digits or other scripts, URLs with
stray characters), for boards of both domains, grid values, sizes, limits,
algorithm parameters, sweep names, specs and service URLs.
"""

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.cli.options import one_line
from orchestrator.sweeps.grid import combinations, parse_values
from orchestrator.sweeps.job_limits import checked_limits, parse_size
from orchestrator.sweeps.plan import check_sweep_name
from orchestrator.sweeps.spec_file import read_spec
from puzzles.domains import detect_domain, instance_from_text
from puzzles.errors import PuzzleError
from puzzles.textio import json_load
from workers.settings import check_broker_url
from workers.store.database import check_url

ROOT = Path(__file__).resolve().parents[2]
BOARDS = [
    (ROOT / "data/boards/rushhour/Rushhour6x6_1.csv").read_text(),
    "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM",
    "AAoo\noooo\noooo\noooo\n",
    '{"red":"A","size":6,"vehicles":[["A","H",1,3,2],["B","V",3,1,3]],"walls":[[5,5]]}',
    "1 2 3/4 5 6/7 8 0",
    "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3",
    '{"goal":"blank-first","tiles":[1,2,3,0],"width":2}',
]
NASTY = st.sampled_from(["\x00", "\x1b[31m", "\uff11", "\u0663", "\u00e9", "-", "+", ".", ",", "/", "#", "_", "9" * 60,
                         "{", "}", "[", "]", '"', "\n", "\r", " ", "e30", "NaN", "Infinity", "x", "o", "A", "0"])


@st.composite
def near_misses(draw, texts: list[str]) -> str:
    """A valid text with a few characters replaced, inserted or deleted."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["replace", "insert", "delete"]))
        piece = draw(NASTY | st.text(max_size=3))
        text = text[:at] + (piece if action != "delete" else "") + text[at + (action != "insert"):]
    return text


ANYTHING = st.text(max_size=200) | near_misses(BOARDS)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def refused_in_one_line(call, *args) -> None:
    """`call(*args)` returns, or raises a PuzzleError that the command line prints as one line; nothing else."""
    try:
        call(*args)
    except PuzzleError as err:
        assert "\n" not in one_line(str(err))


@FUZZ
@given(ANYTHING, st.sampled_from(["rushhour", "npuzzle"]))
def test_board_texts(text, domain):
    refused_in_one_line(instance_from_text, domain, text)
    refused_in_one_line(instance_from_text, detect_domain(text) if "\x00" not in text else domain, text)


@FUZZ
@given(st.text(max_size=80) | near_misses(["1..50:5,64", "1,2,3", "0.5..2:0.25", "blockers,blockers-lb"]))
def test_grid_values_and_what_the_algorithms_make_of_them(text):
    try:
        values = parse_values(text, "--k")
    except PuzzleError:
        return
    refused_in_one_line(combinations, ["beam", "spr"], {"k": values[:50], "batches": values[:50]})


@FUZZ
@given(st.text(max_size=40) | near_misses(["512M", "2G", "1.5GiB", "1000000"]))
def test_memory_sizes(text):
    refused_in_one_line(parse_size, text)


@FUZZ
@given(st.dictionaries(st.sampled_from(["time_limit", "max_nodes", "memory_limit"]),
                       st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)))
def test_limits(limits):
    refused_in_one_line(checked_limits, limits)


@FUZZ
@given(st.text(max_size=120))
def test_sweep_names(name):
    refused_in_one_line(check_sweep_name, name)


@FUZZ
@given(st.text(max_size=80) | near_misses(["sqlite:///slidelab.db", "postgresql://u:pw@host:5432/db"]))
def test_database_urls(url):
    refused_in_one_line(check_url, url)


@FUZZ
@given(st.text(max_size=80) | near_misses(["redis://localhost:6379/0", "amqp://guest:guest@host:5672//"]))
def test_broker_urls(url):
    refused_in_one_line(check_broker_url, url)


SPEC = {
    "format": "slidelab-sweep/1", "name": "s", "algorithms": ["beam"], "params": {"k": [1, 2]}, "seeds": None,
    "repeat": 1, "seed_namespace": "s", "limits": {"time_limit": 10}, "boards": [{"domain": "rushhour", "text": BOARDS[1]}],
}
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                           max_leaves=12)


@FUZZ
@given(st.sampled_from(sorted(SPEC)), JSON_VALUES)
def test_sweep_specs(key, value):
    from orchestrator.sweeps.spec_file import plan_from_spec

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "spec.json"
        path.write_text(json.dumps({**SPEC, key: value}))
        refused_in_one_line(lambda: plan_from_spec(read_spec(path)))


@FUZZ
@given(ANYTHING)
def test_json(text):
    refused_in_one_line(json_load, text, "<test>")
