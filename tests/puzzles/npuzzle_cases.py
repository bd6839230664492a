"""N-puzzle cases shared by the search tests."""

# The 8-puzzle document's cases: board -> fewest moves (None: unsolvable).
SEED_CASES = {
    "123456780": 0,
    "123456078": 2,
    "123460758": 3,
    "412053786": 5,
    "412763058": 8,
    "412763580": 10,
    "134805726": None,
}
