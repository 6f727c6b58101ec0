"""Developer tools: eval, flip test, benchmarks. Measured, never imported by the product."""
