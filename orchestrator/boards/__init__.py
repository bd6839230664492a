"""Boards: the catalogue of sets, board pictures, printing a solve, the demo's boards, pattern-database builds."""
