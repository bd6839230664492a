"""slidelab's task workers: Celery tasks that load a board, run `puzzles.solve`
under limits and write the result; adapters only, the logic lives in `puzzles`.
"""
