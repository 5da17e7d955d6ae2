#!/usr/bin/env python3
"""Writes the first N records of a binary MARC file: cut after the N-th record
terminator (0x1D). Used by the bench scripts.

    scripts/cut-records.py IN N OUT
"""
import sys

data = open(sys.argv[1], 'rb').read()
n, end = int(sys.argv[2]), 0
for _ in range(n):
    end = data.index(b'\x1d', end) + 1
open(sys.argv[3], 'wb').write(data[:end])
