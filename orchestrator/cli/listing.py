"""What can run: `algorithms`, the algorithms and heuristics registered, slidelab's own and the plugins'."""

import typer
from rich.table import Table

from orchestrator.cli.options import JsonOption, print_json, print_table, user_errors
from orchestrator.text import plain_table
from slidelab.listing import AlgorithmInfo, HeuristicInfo, Parameter, Plugin

app = typer.Typer()


@app.command("algorithms")
def algorithms_command(as_json: JsonOption = False) -> None:
    """The algorithms --algo chooses from and the heuristics --heuristic names, slidelab's own and the plugins'.

    Each algorithm with its parameters (options of solve, sweep and tune) and what it claims (randomized, optimal,
    takes a heuristic); each heuristic by domain, admissible or not, and whether compiled searches (astar, idastar,
    beam) can run it. A plugin is named with its package and version; see docs/plugins.md to write one.

    Example: orchestrate algorithms --json
    """
    import slidelab
    from puzzles.plugins import API_VERSION

    with user_errors():
        algorithms, heuristics = slidelab.algorithms(), slidelab.heuristics()
    if as_json:
        print_json({"plugin_api": API_VERSION, "algorithms": algorithms, "heuristics": heuristics})
        return
    print_table(algorithms_table(algorithms))
    typer.echo()
    print_table(heuristics_table(heuristics))
    listed: list[AlgorithmInfo | HeuristicInfo] = [*algorithms, *heuristics]
    plugins = sorted({item.plugin.label for item in listed if item.plugin is not None})
    typer.echo(f"plugin API {API_VERSION}; plugins: {', '.join(plugins) or 'none installed'} (docs/plugins.md)")


def algorithms_table(algorithms: list[AlgorithmInfo]) -> Table:
    """A row per algorithm: its name, summary, parameters (a line each), flags, and where it comes from."""
    table = plain_table()
    for column in ("algorithm", "what", "parameters", "flags", "from"):
        table.add_column(column, overflow="fold")
    for entry in algorithms:
        flags = [flag for flag, on in (("randomized", entry.randomized), ("optimal", entry.optimal)) if on]
        if entry.heuristic is not None:
            flags.append(f"heuristic ({entry.heuristic})")
        table.add_row(entry.name, entry.summary, "\n".join(map(parameter_text, entry.parameters)) or "-",
                      ", ".join(flags) or "-", origin_text(entry.plugin))
    return table


def heuristics_table(heuristics: list[HeuristicInfo]) -> Table:
    """A row per heuristic, by domain: its name, summary, admissible or not, compiled or not, where it comes from."""
    table = plain_table()
    for column in ("domain", "heuristic", "what", "admissible", "compiled", "from"):
        table.add_column(column, overflow="fold")
    for entry in heuristics:
        table.add_row(entry.domain, entry.name, entry.summary, "yes" if entry.admissible else "no",
                      "yes" if entry.compiled else "no (plugin algorithms only)", origin_text(entry.plugin))
    return table


def parameter_text(parameter: Parameter) -> str:
    """`k=10 (int ≥ 1)`, `processes=1 (int 1..256)`, `move-model (str: slide|step)`: the option, default, type, range."""
    low, high = parameter.minimum, parameter.maximum
    if low is not None and high is not None:
        kind = f"{parameter.type} {_number(low)}..{_number(high)}"
    elif low is not None or high is not None:
        kind = f"{parameter.type} {'≥' if high is None else '≤'} {_number(low if high is None else high)}"
    else:
        kind = parameter.type + (f": {'|'.join(parameter.choices)}" if parameter.choices else "")
    default = "" if parameter.default is None else f"={_number(parameter.default)}"
    return f"{parameter.name.replace('_', '-')}{default} ({kind})"


def origin_text(plugin: Plugin | None) -> str:
    """`slidelab` for its own, a plugin's package and version, or a plugin file's path."""
    if plugin is None:
        return "slidelab"
    return plugin.package if plugin.local else plugin.label


def _number(value: object) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)

