#!/usr/bin/env python3
"""Reads xbot requests and answers none of them, as a plugin that only
listens for messages it expects from elsewhere would."""
import sys

for line in sys.stdin:
    pass
