"""Reports: a sweep's rows, summaries, comparisons, terminal tables, PNG plots, verification, analysis."""
