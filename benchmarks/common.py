"""Shared by the benchmarks: printing a result as a ratio to its goal."""
from __future__ import annotations


def report(name: str, value: float, goal: float, unit: str, higher_is_better: bool = False) -> bool:
    """Print `name: value unit (ratio of goal)` and return whether the goal is met."""
    ratio = value / goal if goal else float("inf")
    met = value >= goal if higher_is_better else value <= goal
    sense = ">=" if higher_is_better else "<="
    print(f"{name}: {value:.3g} {unit} ({ratio:.2f} of goal {sense} {goal:g} {unit}) "
          f"{'ok' if met else 'MISSED'}", flush=True)
    return met
