"""make mutants: break the series on purpose and check that a test sees it."""
