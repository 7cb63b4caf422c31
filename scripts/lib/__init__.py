"""What every step of the pipeline shares: paths, commands, packages, results."""
