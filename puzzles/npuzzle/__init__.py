"""The N-puzzle domain: boards and solvability (`board`), formats and board lists (`formats`, `boardlist`), the
search problem (`problem`), its compiled kernels (`kernels`), pattern databases (`pdb`), board generators
(`generate`) and the analysis of whole small state spaces (`analysis`)."""
