"""Benchmarks: scripts that measure the server and print their figures."""
