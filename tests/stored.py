"""A sweep stored in a results database without running it: the tests' one way to make one."""

from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.plan import SweepPlan, plan_sweep, store_plan
from workers.store import Database
from workers.store.sweeps import unfinished_jobs


def store_sweep(db: Database, name: str, boards, grid: SweepGrid, limits: dict | None = None,
                extend: bool = False) -> tuple[SweepPlan, int, list[int]]:
    """Plan sweep `name` of `grid` on `boards` and store it in `db` (`extend`: add to a sweep of that name with another
    grid): the plan, the sweep's id and its unfinished job ids in plan order."""
    plan = plan_sweep(name, boards, grid, limits)
    sweep_id, _ = store_plan(db, plan, extend=extend)
    return plan, sweep_id, unfinished_jobs(db, sweep_id)
