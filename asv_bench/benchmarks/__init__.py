"""asv benchmarks for tenferro, each case beside its NumPy and PyTorch counterpart."""
