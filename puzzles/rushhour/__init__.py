"""The Rush Hour domain: boards (`board`), their formats (`formats`), the search problem (`problem`), its
compiled kernels (`kernels`) and a generator of boards of a chosen difficulty (`generate`)."""
