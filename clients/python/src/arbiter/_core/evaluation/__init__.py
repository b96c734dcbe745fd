"""Evaluation: targeting conditions (the closure tree), attributes, holdouts and layers, and the
variant function that decides in the order every evaluator shares."""
